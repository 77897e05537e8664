package dev.keel.service.visibility;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.List;

/**
 * The workflows of one type in the client's namespace: through Temporal's visibility query, or, on a server
 * without one (the Java test server behind {@code keel dev --temporal embedded}), through its open and
 * closed lists, which there answer every type (filtered here).
 */
public final class WorkflowListing {
  /** Visibility is read in pages of this many; a listing reads at most MAX_LISTED. */
  private static final int PAGE = 500;
  private static final int MAX_LISTED = 10_000;

  private WorkflowListing() {}

  /** The executions of {@code type}; only the running ones when {@code openOnly}. */
  public static List<WorkflowExecutionInfo> executions(WorkflowClient client, String type, boolean openOnly) {
    String namespace = client.getOptions().getNamespace();
    WorkflowServiceGrpc.WorkflowServiceBlockingStub stub = client.getWorkflowServiceStubs().blockingStub();
    List<WorkflowExecutionInfo> out = new ArrayList<>();
    try {
      ByteString token = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse r = stub.listWorkflowExecutions(ListWorkflowExecutionsRequest.newBuilder()
            .setNamespace(namespace).setPageSize(PAGE).setNextPageToken(token)
            .setQuery("WorkflowType = '" + type + "'" + (openOnly ? " AND ExecutionStatus = 'Running'" : "")).build());
        out.addAll(r.getExecutionsList());
        token = r.getNextPageToken();
      } while (!token.isEmpty() && out.size() < MAX_LISTED);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
      WorkflowTypeFilter filter = WorkflowTypeFilter.newBuilder().setName(type).build();
      out.addAll(stub.listOpenWorkflowExecutions(ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(namespace)
          .setMaximumPageSize(MAX_LISTED).setTypeFilter(filter).build()).getExecutionsList());
      if (!openOnly) {
        out.addAll(stub.listClosedWorkflowExecutions(ListClosedWorkflowExecutionsRequest.newBuilder()
            .setNamespace(namespace).setMaximumPageSize(MAX_LISTED).setTypeFilter(filter).build()).getExecutionsList());
      }
    }
    out.removeIf(info -> !info.getType().getName().equals(type));
    return out;
  }
}
