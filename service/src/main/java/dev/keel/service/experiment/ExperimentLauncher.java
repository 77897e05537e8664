package dev.keel.service.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentState;
import dev.keel.service.visibility.KeelWorkers;
import dev.keel.service.visibility.WorkflowDescriptions;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

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

  /**
   * What the submitter should know before the experiment waits in silence: too few workers poll its pool to
   * start a trial (where the server can tell; the embedded test server cannot).
   */
  public static List<String> warnings(WorkflowClient client, ExperimentConfig config) {
    String pool = config.getResources().getResourcePool().isBlank() ? ConfigDefaults.RESOURCE_POOL
        : config.getResources().getResourcePool();
    int slots = config.getResources().hasSlotsPerTrial() ? config.getResources().getSlotsPerTrial()
        : ConfigDefaults.SLOTS_PER_TRIAL;
    try {
      return KeelWorkers.slotWarning(client, pool, slots).map(List::of).orElse(List.of());
    } catch (RuntimeException e) {
      return List.of(); // a warning only: the server's answer must not stop a submission
    }
  }

  public static ExperimentWorkflow stub(WorkflowClient client, String id) {
    return client.newWorkflowStub(ExperimentWorkflow.class, id);
  }

  public static ExperimentState state(WorkflowClient client, String id) {
    return stub(client, id).state();
  }

  /** The experiment workflow's execution status, or empty when Temporal knows no workflow of that id. */
  public static Optional<WorkflowExecutionStatus> status(WorkflowClient client, String id) {
    return WorkflowDescriptions.describe(client, id).map(d -> d.getWorkflowExecutionInfo().getStatus());
  }

}
