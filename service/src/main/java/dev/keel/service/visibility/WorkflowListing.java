package dev.keel.service.visibility;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.List;

/**
 * The workflows of one type in the client's namespace: through Temporal's visibility query, or, on
 * a server without one (the Java test server behind {@code keel dev --temporal embedded}), through
 * its open and closed lists, which there answer every type (filtered here).
 */
public final class WorkflowListing {
  /** Visibility is read in pages of this many; a listing reads at most MAX_LISTED. */
  private static final int PAGE = 500;

  private static final int MAX_LISTED = 10_000;

  private WorkflowListing() {}

  /** The executions of {@code type}; only the running ones when {@code openOnly}. */
  public static List<WorkflowExecutionInfo> executions(
      WorkflowClient client, String type, boolean openOnly) {
    return executions(client, type, openOnly, false);
  }

  /**
   * As {@link #executions(WorkflowClient, String, boolean)}, each with its search attributes and
   * close time: the test server's lists carry neither, so there each execution is described (one
   * call per execution).
   */
  public static List<WorkflowExecutionInfo> detailedExecutions(
      WorkflowClient client, String type, boolean openOnly) {
    return executions(client, type, openOnly, true);
  }

  private static List<WorkflowExecutionInfo> executions(
      WorkflowClient client, String type, boolean openOnly, boolean detailed) {
    String namespace = client.getOptions().getNamespace();
    WorkflowServiceGrpc.WorkflowServiceBlockingStub stub =
        client.getWorkflowServiceStubs().blockingStub();
    List<WorkflowExecutionInfo> out = new ArrayList<>();
    try {
      ByteString token = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse r =
            stub.listWorkflowExecutions(
                ListWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(namespace)
                    .setPageSize(PAGE)
                    .setNextPageToken(token)
                    .setQuery(
                        "WorkflowType = '"
                            + type
                            + "'"
                            + (openOnly ? " AND ExecutionStatus = 'Running'" : ""))
                    .build());
        out.addAll(r.getExecutionsList());
        token = r.getNextPageToken();
      } while (!token.isEmpty() && out.size() < MAX_LISTED);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
      WorkflowTypeFilter filter = WorkflowTypeFilter.newBuilder().setName(type).build();
      out.addAll(
          stub.listOpenWorkflowExecutions(
                  ListOpenWorkflowExecutionsRequest.newBuilder()
                      .setNamespace(namespace)
                      .setMaximumPageSize(MAX_LISTED)
                      .setTypeFilter(filter)
                      .build())
              .getExecutionsList());
      if (!openOnly) {
        out.addAll(
            stub.listClosedWorkflowExecutions(
                    ListClosedWorkflowExecutionsRequest.newBuilder()
                        .setNamespace(namespace)
                        .setMaximumPageSize(MAX_LISTED)
                        .setTypeFilter(filter)
                        .build())
                .getExecutionsList());
      }
      out.removeIf(info -> !info.getType().getName().equals(type));
      if (detailed) {
        out.replaceAll(info -> describe(stub, namespace, info));
      }
    }
    out.removeIf(info -> !info.getType().getName().equals(type));
    return out;
  }

  /**
   * The execution as DescribeWorkflowExecution tells it, or as listed when it is gone meanwhile.
   */
  private static WorkflowExecutionInfo describe(
      WorkflowServiceGrpc.WorkflowServiceBlockingStub stub,
      String namespace,
      WorkflowExecutionInfo listed) {
    try {
      WorkflowExecutionInfo described =
          stub.describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(namespace)
                      .setExecution(listed.getExecution())
                      .build())
              .getWorkflowExecutionInfo();
      return described.toBuilder().setType(listed.getType()).build();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return listed;
      }
      throw e;
    }
  }
}
