package dev.keel.service.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentState;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
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

  public static ExperimentWorkflow stub(WorkflowClient client, String id) {
    return client.newWorkflowStub(ExperimentWorkflow.class, id);
  }

  public static ExperimentState state(WorkflowClient client, String id) {
    return stub(client, id).state();
  }

  /** The experiment workflow's execution status, or empty when Temporal knows no workflow of that id. */
  public static Optional<WorkflowExecutionStatus> status(WorkflowClient client, String id) {
    try {
      return Optional.of(client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
          DescribeWorkflowExecutionRequest.newBuilder().setNamespace(client.getOptions().getNamespace())
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id)).build())
          .getWorkflowExecutionInfo().getStatus());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
