package dev.keel.service.metrics;

import com.sun.management.OperatingSystemMXBean;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import java.lang.management.ManagementFactory;

/**
 * The process's Prometheus registry. It joins Micrometer's global registry, where Keel's libraries
 * count what they do ({@code Metrics.counter(...)}: checkpoint bytes, training samples) without
 * knowing who exports it, and Temporal's SDK reports its client and worker metrics into it through
 * {@link #temporalScope()}. Metric names: {@code keel_*} (e.g. {@code
 * keel_checkpoint_written_bytes_total}), {@code temporal_*}, {@code jvm_*}, {@code process_*},
 * {@code system_*}.
 *
 * <p>What one scrape holds is kept small and regular by Micrometer's meter filters, installed
 * before any meter registers: Temporal's meters keep only the labels that say something and a few
 * buckets ({@link TemporalMeters}); times are in seconds (Micrometer's {@code process.cpu.time}
 * counts nanoseconds, so {@code process_cpu_seconds_total} replaces it, under the name Prometheus'
 * own clients give it); every family has a {@code HELP} line ({@link #describeEveryMeter()}).
 */
public final class KeelMetrics {
  /**
   * Micrometer's {@link ProcessorMetrics} counter in nanoseconds, denied for {@code
   * process_cpu_seconds_total}.
   */
  private static final String PROCESS_CPU_TIME_NS = "process.cpu.time";

  private static PrometheusMeterRegistry registry;
  private static Scope temporalScope;

  private KeelMetrics() {}

  /** The registry, created and bound to the JVM's metrics on first use. */
  public static synchronized PrometheusMeterRegistry registry() {
    if (registry == null) {
      PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      r.config()
          .meterFilter(new TemporalMeters())
          .meterFilter(MeterFilter.deny(id -> id.getName().equals(PROCESS_CPU_TIME_NS)))
          .meterFilter(describeEveryMeter());
      new JvmMemoryMetrics().bindTo(r);
      new JvmGcMetrics().bindTo(r);
      new JvmThreadMetrics().bindTo(r);
      new ClassLoaderMetrics().bindTo(r);
      new ProcessorMetrics().bindTo(r);
      new UptimeMetrics().bindTo(r);
      bindProcessCpuSeconds(r);
      Metrics.addRegistry(r);
      registry = r;
    }
    return registry;
  }

  /**
   * Gives a meter registered without a description (a library's) one naming it, so that its
   * family's {@code HELP} line is never empty.
   */
  static MeterFilter describeEveryMeter() {
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        if (id.getDescription() != null && !id.getDescription().isBlank()) {
          return id;
        }
        return new Meter.Id(
            id.getName(),
            Tags.of(id.getTagsAsIterable()),
            id.getBaseUnit(),
            id.getName() + " (registered without a description)",
            id.getType());
      }
    };
  }

  /** {@code process_cpu_seconds_total}: the JVM's CPU time, where the JVM tells it. */
  private static void bindProcessCpuSeconds(MeterRegistry r) {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
        && os.getProcessCpuTime() >= 0) {
      FunctionCounter.builder("process.cpu", os, b -> b.getProcessCpuTime() / 1e9)
          .baseUnit("seconds")
          .description("CPU time the JVM process used, in seconds")
          .register(r);
    }
  }

  /**
   * The Tally scope Temporal's service stubs report into (one per process: Temporal's metric names
   * are global).
   */
  public static synchronized Scope temporalScope() {
    if (temporalScope == null) {
      temporalScope =
          new RootScopeBuilder()
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
