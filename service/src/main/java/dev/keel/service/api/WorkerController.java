package dev.keel.service.api;

import dev.keel.service.visibility.KeelWorkers;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.Map;

/** REST: the workers polling Keel's task queues, and the training slots per pool. */
@Controller("/api/v1/workers")
public class WorkerController {
  private final WorkflowClient client;

  @Inject
  public WorkerController(WorkflowClient client) {
    this.client = client;
  }

  /**
   * {@code pools}: the training pools to count slots of (default cpu,gpu); 501 on a server without
   * task queue descriptions.
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list(@QueryValue(defaultValue = "cpu,gpu") String pools) {
    try {
      return HttpResponse.ok(
          KeelWorkers.json(
              client,
              Arrays.stream(pools.split(","))
                  .map(String::trim)
                  .filter(p -> !p.isEmpty())
                  .toList()));
    } catch (IllegalStateException e) {
      return HttpResponse.status(HttpStatus.NOT_IMPLEMENTED)
          .body(Map.of("message", e.getMessage()));
    }
  }
}
