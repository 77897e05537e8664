package dev.keel.service.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowServiceException;
import jakarta.inject.Inject;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * 503 naming the Temporal address for a request Temporal did not answer (down, unreachable, past
 * the call's deadline), where Micronaut would answer 500 and log the SDK's stack: the server logs
 * one warning line instead. No routes of its own.
 */
@Controller
public class TemporalUnansweredController {
  private static final Logger LOG = LoggerFactory.getLogger(TemporalUnansweredController.class);

  private final WorkflowClient client;

  @Inject
  public TemporalUnansweredController(WorkflowClient client) {
    this.client = client;
  }

  @Error(global = true, exception = WorkflowServiceException.class)
  public HttpResponse<Map<String, String>> workflowService(WorkflowServiceException e) {
    return unanswered(e);
  }

  @Error(global = true, exception = StatusRuntimeException.class)
  public HttpResponse<Map<String, String>> rpc(StatusRuntimeException e) {
    return unanswered(e);
  }

  private HttpResponse<Map<String, String>> unanswered(RuntimeException e) {
    String message =
        "Temporal at "
            + client.getWorkflowServiceStubs().getOptions().getTarget()
            + " did not answer: "
            + reason(e);
    LOG.warn("{}", message);
    return HttpResponse.<Map<String, String>>status(HttpStatus.SERVICE_UNAVAILABLE)
        .body(Map.of("message", message));
  }

  /** The gRPC status where there is one; the SDK refuses a call whose deadline already passed. */
  static String reason(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException rpc) {
        Status status = rpc.getStatus();
        return status.getCode() == Status.Code.DEADLINE_EXCEEDED
            ? "no answer before the call's deadline"
            : status.getCode()
                + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
      }
      if (t instanceof IllegalArgumentException
          && String.valueOf(t.getMessage()).startsWith("invalid expiration")) {
        return "no answer before the call's deadline";
      }
    }
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }
}
