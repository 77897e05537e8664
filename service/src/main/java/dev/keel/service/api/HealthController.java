package dev.keel.service.api;

import dev.keel.storage.StorageProbe;
import dev.keel.storage.StorageRoot;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Liveness ({@code /health}: the process answers) and readiness ({@code /health/readiness}:
 * Temporal answers within 2 s and the storage root can be listed), for load balancers and
 * Kubernetes probes. Both answer without a token: they say nothing but "up" or which dependency is
 * down and why.
 */
@Controller("/health")
public class HealthController {
  static final long TEMPORAL_DEADLINE_SECONDS = 2;

  private final WorkflowClient client;
  private final StorageRoot storage;

  @Inject
  public HealthController(WorkflowClient client, StorageRoot storage) {
    this.client = client;
    this.storage = storage;
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> live() {
    return HttpResponse.ok(Map.of("status", "UP"));
  }

  @Get(value = "/readiness", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> ready() {
    Map<String, String> checks = new LinkedHashMap<>();
    checks.put("temporal", temporalProblem().orElse("UP"));
    checks.put("storage", StorageProbe.problem(storage).orElse("UP"));
    boolean up = checks.values().stream().allMatch("UP"::equals);
    Map<String, Object> body = Map.of("status", up ? "UP" : "DOWN", "checks", checks);
    return up
        ? HttpResponse.ok(body)
        : HttpResponse.<Map<String, Object>>status(HttpStatus.SERVICE_UNAVAILABLE).body(body);
  }

  private Optional<String> temporalProblem() {
    try {
      client
          .getWorkflowServiceStubs()
          .blockingStub()
          .withDeadlineAfter(TEMPORAL_DEADLINE_SECONDS, TimeUnit.SECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(
          "Temporal at "
              + client.getWorkflowServiceStubs().getOptions().getTarget()
              + " does not answer: "
              + e.getMessage());
    }
  }
}
