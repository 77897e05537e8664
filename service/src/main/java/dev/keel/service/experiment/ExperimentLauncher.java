package dev.keel.service.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentState;
import dev.keel.search.Searchers;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Starts experiments with readable ids and sends them control signals. */
public final class ExperimentLauncher {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private ExperimentLauncher() {}

  /**
   * Validates (config and searcher) and starts; the id reads {@code experiment-<name>-<utc time>}.
   *
   * @throws dev.keel.api.config.ConfigValidationException listing every problem before anything starts
   */
  public static String start(WorkflowClient client, ExperimentRequest request) {
    ExperimentConfig config = request.getConfig();
    Searchers.create(config); // every searcher-specific problem, with field paths, before a workflow exists
    String name = config.getName().isBlank() ? "unnamed" : config.getName().replaceAll("[^A-Za-z0-9_.-]", "-");
    String id = "experiment-" + name + "-" + STAMP.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    ExperimentWorkflow wf = client.newWorkflowStub(ExperimentWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowId(id)
        .setStaticSummary("experiment " + config.getName() + ": " + config.getSearcher().getName() + " on "
            + config.getData().getTable() + " (" + config.getSearcher().getMetric() + ")")
        .build());
    WorkflowClient.start(wf::run, request);
    return id;
  }

  public static ExperimentWorkflow stub(WorkflowClient client, String id) {
    return client.newWorkflowStub(ExperimentWorkflow.class, id);
  }

  public static ExperimentState state(WorkflowClient client, String id) {
    return stub(client, id).state();
  }
}
