package dev.keel.service.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import dev.keel.service.interception.AroundActivity;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Counts, into Micrometer's global registry (see {@link KeelMetrics}), the activities this process's workers run, by task queue and type: {@code
 * keel_activities_running} (a {@code Train} activity on {@code keel-train-<pool>} is one busy slot of
 * that pool) and {@code keel_activity_failures_total} by Keel's failure type ({@code
 * InvalidInferenceRequest}, {@code StorageUnusable}, ...; the exception's class when it has none).
 * Temporal's own {@code temporal_activity_*} metrics count attempts but not Keel's types.
 */
public final class ActivityMetrics extends AroundActivity {
  /** Per process, like the gauges: every worker host of a process counts into the same ones. */
  private static final Map<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();
  private final MeterRegistry registry = Metrics.globalRegistry;

  @Override
  protected ActivityOutput around(ActivityInfo info, ActivityInput input, Function<ActivityInput, ActivityOutput> call) {
    AtomicInteger now = running(info.getActivityTaskQueue(), info.getActivityType());
    now.incrementAndGet();
    try {
      return call.apply(input);
    } catch (RuntimeException | Error e) {
      registry.counter("keel.activity.failures", "task_queue", info.getActivityTaskQueue(),
          "activity", info.getActivityType(), "type", typeOf(e)).increment();
      throw e;
    } finally {
      now.decrementAndGet();
    }
  }

  private AtomicInteger running(String taskQueue, String activity) {
    return RUNNING.computeIfAbsent(taskQueue + "\u0000" + activity, k -> {
      AtomicInteger n = new AtomicInteger();
      Gauge.builder("keel.activities.running", n, AtomicInteger::get)
          .description("activities executing now in this process")
          .tags("task_queue", taskQueue, "activity", activity)
          .register(registry);
      return n;
    });
  }

  static String typeOf(Throwable e) {
    if (e instanceof ApplicationFailure f && f.getType() != null && !f.getType().isEmpty()) {
      return f.getType();
    }
    return e.getClass().getSimpleName();
  }
}
