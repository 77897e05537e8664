package dev.keel.service.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.SearchStack;
import dev.keel.service.worker.KeelWorkerHost;
import io.micrometer.core.instrument.Gauge;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A real search of 2 trials on one training slot: while one trial trains, {@code keel_trials} shows it
 * running and the other queued in pool cpu; once the experiment is killed, neither is counted any more.
 */
class TrialGaugesCountRunningAndQueuedTrialsByPoolTest {
  private static final String CONFIG = """
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
        TrialGauges gauges = new TrialGauges(KeelWorkerHost.client(stubs, "default"), Duration.ZERO);
        String id = stack.submit(CONFIG);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        double running = 0;
        double queued = 0;
        while ((running != 1 || queued != 1) && System.nanoTime() < deadline) {
          Thread.sleep(200);
          gauges.refresh();
          running = value("running");
          queued = value("queued");
        }
        assertEquals(1, running, "trials training in pool cpu");
        assertEquals(1, queued, "trials waiting for the one slot of pool cpu");
        assertTrue(KeelMetrics.scrape().contains("keel_trials{pool=\"cpu\",state=\"queued\"} 1.0"), KeelMetrics.scrape());

        assertEquals(202, stack.post("/api/v1/experiments/" + id + "/kill").statusCode());
        stack.getJson("/api/v1/experiments/" + id); // answers while it winds down
        while (stack.getJson("/api/v1/experiments/" + id + "/view").get("experiment").get("running").asBoolean()
            && System.nanoTime() < deadline) {
          Thread.sleep(200);
        }
        gauges.refresh();
        assertEquals(-1, value("running"), "no series once no experiment runs");
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  /** The gauge's value, or -1 when it has no such series. */
  private static double value(String state) {
    Gauge g = KeelMetrics.registry().find("keel.trials").tags("pool", "cpu", "state", state).gauge();
    return g == null ? -1 : g.value();
  }
}
