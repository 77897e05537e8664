package dev.keel.service.api;

import dev.keel.service.metrics.KeelMetrics;
import dev.keel.service.metrics.TrialGauges;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;

/**
 * This process's metrics in Prometheus' text format (version 0.0.4), for a scrape job at {@code
 * /metrics}.
 */
@Controller("/metrics")
public class MetricsController {
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final TrialGauges trials;

  @Inject
  public MetricsController(WorkflowClient client) {
    this.trials = new TrialGauges(client);
  }

  @Get(produces = PROMETHEUS_TEXT)
  public HttpResponse<String> scrape() {
    trials.refresh();
    return HttpResponse.ok(KeelMetrics.scrape()).contentType(PROMETHEUS_TEXT);
  }
}
