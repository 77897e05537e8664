package dev.keel.service.metrics;

import dev.keel.api.v1.PoolDemand;
import dev.keel.service.pool.ExperimentDemandObserver;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code keel_trials{pool,state}}: the trials of the running experiments that are training now
 * ({@code running}: every rank's Train activity started) or waiting for slots of their pool ({@code
 * queued}), as the pool provisioner sees them ({@link ExperimentDemandObserver}); read for a scrape
 * at most every {@link #MAX_AGE}, since each reading asks Temporal about every running experiment
 * and active trial.
 */
public final class TrialGauges {
  static final Duration MAX_AGE = Duration.ofSeconds(10);

  private final ExperimentDemandObserver demand;
  private final Duration maxAge;
  private final MultiGauge gauge;
  private long readNanos;
  private boolean read;

  public TrialGauges(WorkflowClient client) {
    this(client, MAX_AGE);
  }

  TrialGauges(WorkflowClient client, Duration maxAge) {
    this.demand = new ExperimentDemandObserver(client);
    this.maxAge = maxAge;
    this.gauge =
        MultiGauge.builder("keel.trials")
            .description("trials of running experiments by pool and state")
            .register(KeelMetrics.registry());
  }

  /**
   * Reads the running experiments again unless the last reading is younger than {@link #MAX_AGE}.
   */
  public synchronized void refresh() {
    if (read && System.nanoTime() - readNanos < maxAge.toNanos()) {
      return;
    }
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    demand
        .gangsByPool(PoolDemand.newBuilder())
        .forEach(
            (pool, gangs) -> {
              long running =
                  gangs.stream().filter(g -> g.getRanksStarted() >= g.getSlots()).count();
              rows.add(MultiGauge.Row.of(Tags.of("pool", pool, "state", "running"), running));
              rows.add(
                  MultiGauge.Row.of(
                      Tags.of("pool", pool, "state", "queued"), gangs.size() - running));
            });
    gauge.register(rows, true);
    readNanos = System.nanoTime();
    read = true;
  }
}
