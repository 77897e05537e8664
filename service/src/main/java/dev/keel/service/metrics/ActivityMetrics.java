package dev.keel.service.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts, into Micrometer's global registry (see {@link KeelMetrics}), the activities this process's workers run, by task queue and type: {@code
 * keel_activities_running} (a {@code Train} activity on {@code keel-train-<pool>} is one busy slot of
 * that pool) and {@code keel_activity_failures_total} by Keel's failure type ({@code
 * InvalidInferenceRequest}, {@code StorageUnusable}, ...; the exception's class when it has none).
 * Temporal's own {@code temporal_activity_*} metrics count attempts but not Keel's types.
 */
public final class ActivityMetrics extends WorkerInterceptorBase {
  /** Per process, like the gauges: every worker host of a process counts into the same ones. */
  private static final Map<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();
  private final MeterRegistry registry = Metrics.globalRegistry;

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityExecutionContext context;

      @Override
      public void init(ActivityExecutionContext context) {
        this.context = context;
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        ActivityInfo info = context.getInfo();
        AtomicInteger now = running(info.getActivityTaskQueue(), info.getActivityType());
        now.incrementAndGet();
        try {
          return super.execute(input);
        } catch (RuntimeException | Error e) {
          registry.counter("keel.activity.failures", "task_queue", info.getActivityTaskQueue(),
              "activity", info.getActivityType(), "type", typeOf(e)).increment();
          throw e;
        } finally {
          now.decrementAndGet();
        }
      }
    };
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
