package dev.keel.service.metrics;

import dev.keel.service.interception.AroundActivity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.metadata.POJOActivityImplMetadata;
import io.temporal.common.metadata.POJOActivityMethodMetadata;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Counts, into Micrometer's global registry (see {@link KeelMetrics}), the activities this
 * process's workers run, by task queue and type: {@code keel_activities_running} (a {@code Train}
 * activity on {@code keel-train-<pool>} is one busy slot of that pool) and {@code
 * keel_activity_failures_total} by Keel's failure type ({@code InvalidInferenceRequest}, {@code
 * StorageUnusable}, ...; the exception's class when it has none). Temporal's own {@code
 * temporal_activity_*} metrics count attempts but not Keel's types.
 *
 * <p>Both are registered at zero for every activity a worker serves ({@link #served}), the failures
 * with an empty {@code type} (Prometheus reads an empty label as none), so a scrape shows them, and
 * a {@code rate()} has a series, before the first attempt or failure.
 */
public final class ActivityMetrics extends AroundActivity {
  /** Per process, like the gauges: every worker host of a process counts into the same ones. */
  private static final Map<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();

  @Override
  protected ActivityOutput around(
      ActivityInfo info, ActivityInput input, Function<ActivityInput, ActivityOutput> call) {
    AtomicInteger now = running(info.getActivityTaskQueue(), info.getActivityType());
    now.incrementAndGet();
    try {
      return call.apply(input);
    } catch (RuntimeException | Error e) {
      failures(info.getActivityTaskQueue(), info.getActivityType(), typeOf(e)).increment();
      throw e;
    } finally {
      now.decrementAndGet();
    }
  }

  /**
   * Registers, at zero, the meters of every activity of {@code implementations} served on {@code
   * taskQueue}.
   */
  public static void served(String taskQueue, Object... implementations) {
    for (Object implementation : implementations) {
      for (POJOActivityMethodMetadata m :
          POJOActivityImplMetadata.newInstance(implementation.getClass()).getActivityMethods()) {
        running(taskQueue, m.getActivityTypeName());
        failures(taskQueue, m.getActivityTypeName(), "");
      }
    }
  }

  private static Counter failures(String taskQueue, String activity, String type) {
    return Counter.builder("keel.activity.failures")
        .description(
            "failed activity attempts in this process by Keel's failure type (empty: none yet)")
        .tags("task_queue", taskQueue, "activity", activity, "type", type)
        .register(Metrics.globalRegistry);
  }

  private static AtomicInteger running(String taskQueue, String activity) {
    return RUNNING.computeIfAbsent(
        taskQueue + "\u0000" + activity,
        k -> {
          AtomicInteger n = new AtomicInteger();
          Gauge.builder("keel.activities.running", n, AtomicInteger::get)
              .description("activities executing now in this process")
              .tags("task_queue", taskQueue, "activity", activity)
              .register(Metrics.globalRegistry);
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
