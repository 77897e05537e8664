package dev.keel.service.api;

import dev.keel.service.schedule.PipelineSchedules;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.util.Map;

/** REST: the namespace's schedules (scheduled retraining, {@code keel schedule}). */
@Controller("/api/v1/schedules")
public class ScheduleController {
  private final WorkflowClient client;

  @Inject
  public ScheduleController(WorkflowClient client) {
    this.client = client;
  }

  /**
   * Every schedule by id; 501 naming why when the Temporal server has no Schedules (the Java test
   * server).
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list() {
    try {
      return HttpResponse.ok(
          PipelineSchedules.json(
              new PipelineSchedules(
                      client.getWorkflowServiceStubs(), client.getOptions().getNamespace())
                  .list()));
    } catch (IllegalStateException e) {
      return HttpResponse.status(HttpStatus.NOT_IMPLEMENTED)
          .body(Map.of("message", e.getMessage()));
    }
  }
}
