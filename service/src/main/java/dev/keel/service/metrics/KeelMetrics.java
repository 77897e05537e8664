package dev.keel.service.metrics;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;

/**
 * The process's Prometheus registry. It joins Micrometer's global registry, where Keel's libraries
 * count what they do ({@code Metrics.counter(...)}: checkpoint bytes, training samples) without
 * knowing who exports it, and Temporal's SDK reports its client and worker metrics into it through
 * {@link #temporalScope()}. Metric names: {@code keel_*} (e.g. {@code keel_checkpoint_written_bytes_total}), {@code temporal_*}, {@code jvm_*},
 * {@code process_*}, {@code system_*}.
 */
public final class KeelMetrics {
  private static PrometheusMeterRegistry registry;
  private static Scope temporalScope;

  private KeelMetrics() {}

  /** The registry, created and bound to the JVM's metrics on first use. */
  public static synchronized PrometheusMeterRegistry registry() {
    if (registry == null) {
      PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      new JvmMemoryMetrics().bindTo(r);
      new JvmGcMetrics().bindTo(r);
      new JvmThreadMetrics().bindTo(r);
      new ClassLoaderMetrics().bindTo(r);
      new ProcessorMetrics().bindTo(r);
      new UptimeMetrics().bindTo(r);
      Metrics.addRegistry(r);
      registry = r;
    }
    return registry;
  }

  /** The Tally scope Temporal's service stubs report into (one per process: Temporal's metric names are global). */
  public static synchronized Scope temporalScope() {
    if (temporalScope == null) {
      temporalScope = new RootScopeBuilder()
          .reporter(new MicrometerClientStatsReporter(registry()))
          .reportEvery(Duration.ofSeconds(1));
    }
    return temporalScope;
  }

  /** The Prometheus text exposition of everything registered, as {@code /metrics} serves it. */
  public static String scrape() {
    return registry().scrape();
  }
}
