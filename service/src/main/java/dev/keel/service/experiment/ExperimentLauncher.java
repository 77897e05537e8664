package dev.keel.service.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentState;
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
   * Starts an experiment whose config the caller loaded through {@link dev.keel.search.ExperimentConfigs} (which
   * validated it); the workflow checks it once more at start, as it must for starts that bypass Keel's client.
   * The id reads {@code experiment-<name>-<utc time>}.
   */
  public static String start(WorkflowClient client, ExperimentRequest request) {
    ExperimentConfig config = request.getConfig();
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
