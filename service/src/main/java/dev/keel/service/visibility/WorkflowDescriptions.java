package dev.keel.service.visibility;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.util.Optional;

/** A workflow's description (status, pending activities) as the server has it. */
public final class WorkflowDescriptions {
  private WorkflowDescriptions() {}

  /**
   * The latest run of {@code workflowId}, or empty when Temporal does not know it (yet, or any
   * more).
   */
  public static Optional<DescribeWorkflowExecutionResponse> describe(
      WorkflowClient client, String workflowId) {
    try {
      return Optional.of(
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .build()));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
