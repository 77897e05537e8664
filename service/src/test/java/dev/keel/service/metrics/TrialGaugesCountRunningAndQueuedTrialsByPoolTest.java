package dev.keel.service.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.SearchStack;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import io.micrometer.core.instrument.Gauge;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A real search of 2 trials on one training slot: while one trial trains, {@code keel_trials} shows
 * it running and the other queued in pool cpu; once the experiment is killed, neither is counted
 * any more.
 */
class TrialGaugesCountRunningAndQueuedTrialsByPoolTest {
  private static final String CONFIG =
      """
      name: gauges
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 64, width: {type: categorical, vals: [4, 8]}, optimizer: adam}
      searcher: {name: grid, metric: validation_loss, smaller_is_better: true, max_length: {batches: 4000}}
      reproducibility: {seed: 2}
      model: {name: fashion_cnn}
      """;

  @Test
  void oneTrialRunsOneQueuesAndNoneAfterTheKill() throws Exception {
    try (SearchStack stack = SearchStack.start("gauges")) {
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(stack.temporalAddress());
      try {
        TrialGauges gauges =
            new TrialGauges(KeelWorkerHost.client(stubs, "default"), Duration.ZERO);
        String id = stack.submit(CONFIG);
        List<Double> counts =
            Poll.until(
                "one trial running and one queued in pool cpu",
                Duration.ofMinutes(2),
                () -> {
                  gauges.refresh();
                  return List.of(value("running"), value("queued"));
                },
                c -> c.equals(List.of(1.0, 1.0)));
        assertEquals(1, counts.get(0), "trials training in pool cpu");
        assertEquals(1, counts.get(1), "trials waiting for the one slot of pool cpu");
        assertTrue(
            KeelMetrics.scrape().contains("keel_trials{pool=\"cpu\",state=\"queued\"} 1.0"),
            KeelMetrics.scrape());

        assertEquals(202, stack.post("/api/v1/experiments/" + id + "/kill").statusCode());
        stack.getJson("/api/v1/experiments/" + id); // answers while it winds down
        Poll.until(
            "the killed experiment's workflow to close",
            Duration.ofMinutes(2),
            () -> {
              try {
                return !stack
                    .getJson("/api/v1/experiments/" + id + "/view")
                    .get("experiment")
                    .get("running")
                    .asBoolean();
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
        gauges.refresh();
        assertEquals(-1, value("running"), "no series once no experiment runs");
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  /** The gauge's value, or -1 when it has no such series. */
  private static double value(String state) {
    Gauge g =
        KeelMetrics.registry().find("keel.trials").tags("pool", "cpu", "state", state).gauge();
    return g == null ? -1 : g.value();
  }
}
