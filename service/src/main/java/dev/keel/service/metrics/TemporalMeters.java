package dev.keel.service.metrics;

import static io.temporal.serviceclient.MetricsTag.ACTIVITY_TYPE;
import static io.temporal.serviceclient.MetricsTag.EXCEPTION;
import static io.temporal.serviceclient.MetricsTag.OPERATION_NAME;
import static io.temporal.serviceclient.MetricsTag.POLLER_TYPE;
import static io.temporal.serviceclient.MetricsTag.STATUS_CODE;
import static io.temporal.serviceclient.MetricsTag.TASK_FAILURE_TYPE;
import static io.temporal.serviceclient.MetricsTag.TASK_QUEUE;
import static io.temporal.serviceclient.MetricsTag.WORKER_TYPE;
import static io.temporal.serviceclient.MetricsTag.WORKFLOW_TYPE;
import static io.temporal.serviceclient.MetricsType.TEMPORAL_LONG_REQUEST;
import static io.temporal.serviceclient.MetricsType.TEMPORAL_LONG_REQUEST_FAILURE;
import static io.temporal.serviceclient.MetricsType.TEMPORAL_LONG_REQUEST_LATENCY;
import static io.temporal.serviceclient.MetricsType.TEMPORAL_REQUEST;
import static io.temporal.serviceclient.MetricsType.TEMPORAL_REQUEST_FAILURE;
import static io.temporal.serviceclient.MetricsType.TEMPORAL_REQUEST_LATENCY;
import static java.util.Map.entry;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.temporal.worker.MetricsType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Bounds Temporal's SDK meters in the registry: without it one scrape of a worker that ran a
 * pipeline was 1.7 MB, nearly all of it Temporal's timers.
 *
 * <ul>
 *   <li><b>Labels.</b> The SDK tags every meter with every one of its tag keys ({@code namespace},
 *       {@code task_queue}, {@code worker_type}, {@code activity_type}, {@code workflow_type},
 *       {@code operation}, {@code status_code}, {@code exception}, {@code signal_name}, {@code
 *       query_type}), {@code none} where a key does not apply, since Prometheus wants one key set
 *       per name. Each family keeps the keys that {@link #KEYS} names for it: those the SDK fills
 *       for it, less the ones constant in a Keel process ({@code namespace}; {@code worker_type}
 *       where the family implies it; {@code task_queue} of workflow meters: every workflow runs on
 *       {@code keel-control}) and {@code workflow_type} of activity meters (the activity type says
 *       what runs). Series that differ only in a dropped key add up (Micrometer hands back the same
 *       counter or timer).
 *   <li><b>Buckets.</b> The SDK asks for a percentile histogram on every timer (69 buckets from 1
 *       ms to 30 s per series). Only the timers one alerts on by percentile keep buckets ({@link
 *       #HISTOGRAMS}: the queue waits of tasks, which grow when workers or slots are too few, and
 *       RPC latency), and only {@link #BUCKETS}, a decade apart from 10 ms to an hour; the others
 *       keep their count, sum and max.
 *   <li><b>Help.</b> The SDK gives no description; Prometheus' {@code HELP} line is the meter's, so
 *       each family gets one from {@link #HELP}.
 * </ul>
 *
 * A {@code temporal_*} family not named here (a newer SDK's) keeps its scope keys ({@link
 * #DEFAULT_KEYS}) and gets a {@code HELP} pointing at Temporal's reference.
 */
final class TemporalMeters implements MeterFilter {
  static final String PREFIX = "temporal_";

  /** Upper bounds of the buckets of every Temporal timer (Micrometer adds {@code +Inf}). */
  static final List<Duration> BUCKETS =
      List.of(
          Duration.ofMillis(10),
          Duration.ofMillis(100),
          Duration.ofSeconds(1),
          Duration.ofSeconds(10),
          Duration.ofMinutes(1),
          Duration.ofMinutes(10),
          Duration.ofHours(1));

  /** The timers that keep buckets. */
  static final Set<String> HISTOGRAMS =
      Set.of(
          MetricsType.ACTIVITY_SCHEDULE_TO_START_LATENCY,
          MetricsType.WORKFLOW_TASK_SCHEDULE_TO_START_LATENCY,
          TEMPORAL_REQUEST_LATENCY);

  private static final List<String> DEFAULT_KEYS =
      List.of(TASK_QUEUE, WORKER_TYPE, WORKFLOW_TYPE, ACTIVITY_TYPE);
  private static final List<String> RPC = List.of(OPERATION_NAME, TASK_QUEUE);
  private static final List<String> RPC_FAILURE = List.of(OPERATION_NAME, STATUS_CODE);
  private static final List<String> WORKFLOW = List.of(WORKFLOW_TYPE);
  private static final List<String> ACTIVITY = List.of(TASK_QUEUE, ACTIVITY_TYPE);
  private static final List<String> QUEUE = List.of(TASK_QUEUE);
  private static final List<String> WORKER = List.of(TASK_QUEUE, WORKER_TYPE);
  private static final List<String> PROCESS = List.of();

  /** The tag keys each family keeps. */
  static final Map<String, List<String>> KEYS =
      Map.ofEntries(
          entry(TEMPORAL_REQUEST, RPC),
          entry(TEMPORAL_REQUEST_LATENCY, RPC),
          entry(TEMPORAL_REQUEST_FAILURE, RPC_FAILURE),
          entry(TEMPORAL_LONG_REQUEST, RPC),
          entry(TEMPORAL_LONG_REQUEST_LATENCY, RPC),
          entry(TEMPORAL_LONG_REQUEST_FAILURE, RPC_FAILURE),
          entry(MetricsType.WORKFLOW_COMPLETED_COUNTER, WORKFLOW),
          entry(MetricsType.WORKFLOW_FAILED_COUNTER, WORKFLOW),
          entry(MetricsType.WORKFLOW_CANCELED_COUNTER, WORKFLOW),
          entry(MetricsType.WORKFLOW_CONTINUE_AS_NEW_COUNTER, WORKFLOW),
          entry(MetricsType.WORKFLOW_E2E_LATENCY, WORKFLOW),
          entry(MetricsType.CORRUPTED_SIGNALS_COUNTER, WORKFLOW),
          entry(MetricsType.WORKFLOW_TASK_EXECUTION_LATENCY, WORKFLOW),
          entry(MetricsType.WORKFLOW_TASK_EXECUTION_TOTAL_LATENCY, WORKFLOW),
          entry(MetricsType.WORKFLOW_TASK_REPLAY_LATENCY, WORKFLOW),
          entry(MetricsType.WORKFLOW_TASK_NO_COMPLETION_COUNTER, WORKFLOW),
          entry(MetricsType.WORKFLOW_TASK_HEARTBEAT_COUNTER, WORKFLOW),
          entry(
              MetricsType.WORKFLOW_TASK_EXECUTION_FAILURE_COUNTER,
              List.of(WORKFLOW_TYPE, TASK_FAILURE_TYPE)),
          entry(MetricsType.WORKFLOW_TASK_SCHEDULE_TO_START_LATENCY, QUEUE),
          entry(MetricsType.WORKFLOW_TASK_QUEUE_POLL_EMPTY_COUNTER, QUEUE),
          entry(MetricsType.WORKFLOW_TASK_QUEUE_POLL_SUCCEED_COUNTER, QUEUE),
          entry(MetricsType.ACTIVITY_POLL_NO_TASK_COUNTER, QUEUE),
          entry(MetricsType.ACTIVITY_SCHEDULE_TO_START_LATENCY, ACTIVITY),
          entry(MetricsType.ACTIVITY_EXEC_LATENCY, ACTIVITY),
          entry(MetricsType.ACTIVITY_SUCCEED_E2E_LATENCY, ACTIVITY),
          entry(
              MetricsType.ACTIVITY_EXEC_FAILED_COUNTER,
              List.of(TASK_QUEUE, ACTIVITY_TYPE, EXCEPTION)),
          entry(MetricsType.ACTIVITY_EXEC_CANCELLED_COUNTER, ACTIVITY),
          entry(MetricsType.ACTIVITY_CANCELED_COUNTER, ACTIVITY),
          entry(MetricsType.LOCAL_ACTIVITY_TOTAL_COUNTER, ACTIVITY),
          entry(MetricsType.LOCAL_ACTIVITY_EXECUTION_LATENCY, ACTIVITY),
          entry(MetricsType.LOCAL_ACTIVITY_SUCCEED_E2E_LATENCY, ACTIVITY),
          entry(MetricsType.LOCAL_ACTIVITY_EXEC_CANCELLED_COUNTER, ACTIVITY),
          entry(MetricsType.LOCAL_ACTIVITY_CANCELED_COUNTER, ACTIVITY),
          entry(
              MetricsType.LOCAL_ACTIVITY_EXEC_FAILED_COUNTER,
              List.of(TASK_QUEUE, ACTIVITY_TYPE, EXCEPTION)),
          entry(
              MetricsType.LOCAL_ACTIVITY_FAILED_COUNTER,
              List.of(TASK_QUEUE, ACTIVITY_TYPE, EXCEPTION)),
          entry(MetricsType.WORKER_START_COUNTER, WORKER),
          entry(MetricsType.POLLER_START_COUNTER, WORKER),
          entry(MetricsType.NUM_POLLERS, List.of(TASK_QUEUE, POLLER_TYPE)),
          entry(MetricsType.WORKER_TASK_SLOTS_AVAILABLE, WORKER),
          entry(MetricsType.WORKER_TASK_SLOTS_USED, WORKER),
          entry(MetricsType.STICKY_CACHE_HIT, PROCESS),
          entry(MetricsType.STICKY_CACHE_MISS, PROCESS),
          entry(MetricsType.STICKY_CACHE_TOTAL_FORCED_EVICTION, PROCESS),
          entry(MetricsType.STICKY_CACHE_THREAD_FORCED_EVICTION, PROCESS),
          entry(MetricsType.STICKY_CACHE_SIZE, PROCESS),
          entry(MetricsType.WORKFLOW_ACTIVE_THREAD_COUNT, PROCESS));

  /**
   * The {@code HELP} text of each family (Temporal's SDK metrics reference describes them at
   * length).
   */
  static final Map<String, String> HELP =
      Map.ofEntries(
          entry(
              TEMPORAL_REQUEST,
              "RPCs this process sent to the Temporal frontend, by operation and task queue"),
          entry(
              TEMPORAL_REQUEST_LATENCY,
              "latency of RPCs to the Temporal frontend, by operation and task queue"),
          entry(
              TEMPORAL_REQUEST_FAILURE,
              "RPCs to the Temporal frontend that failed, by operation and gRPC status"),
          entry(
              TEMPORAL_LONG_REQUEST,
              "long polls this process's workers sent for tasks, by operation and task queue"),
          entry(
              TEMPORAL_LONG_REQUEST_LATENCY,
              "latency of long polls for tasks (up to the server's poll timeout)"),
          entry(
              TEMPORAL_LONG_REQUEST_FAILURE,
              "long polls for tasks that failed, by operation and gRPC status"),
          entry(
              MetricsType.WORKFLOW_COMPLETED_COUNTER,
              "workflow executions that completed, by workflow type"),
          entry(
              MetricsType.WORKFLOW_FAILED_COUNTER,
              "workflow executions that failed, by workflow type"),
          entry(
              MetricsType.WORKFLOW_CANCELED_COUNTER,
              "workflow executions that were canceled, by workflow type"),
          entry(
              MetricsType.WORKFLOW_CONTINUE_AS_NEW_COUNTER,
              "workflow executions that continued as new, by workflow type"),
          entry(
              MetricsType.WORKFLOW_E2E_LATENCY,
              "time from a workflow execution's start to its close"),
          entry(
              MetricsType.CORRUPTED_SIGNALS_COUNTER,
              "signals dropped because their payload did not decode"),
          entry(
              MetricsType.WORKFLOW_TASK_EXECUTION_LATENCY,
              "time a worker ran workflow code for one workflow task"),
          entry(
              MetricsType.WORKFLOW_TASK_EXECUTION_TOTAL_LATENCY,
              "time from a workflow task's pickup to its completion, replay included"),
          entry(
              MetricsType.WORKFLOW_TASK_REPLAY_LATENCY,
              "time spent replaying history to rebuild a workflow"),
          entry(
              MetricsType.WORKFLOW_TASK_NO_COMPLETION_COUNTER,
              "workflow tasks that ended without a completion"),
          entry(
              MetricsType.WORKFLOW_TASK_HEARTBEAT_COUNTER,
              "workflow task heartbeats (long local activities)"),
          entry(
              MetricsType.WORKFLOW_TASK_EXECUTION_FAILURE_COUNTER,
              "workflow tasks that failed (e.g. non-determinism), by failure reason"),
          entry(
              MetricsType.WORKFLOW_TASK_SCHEDULE_TO_START_LATENCY,
              "time a workflow task waited in its queue for a worker"),
          entry(
              MetricsType.WORKFLOW_TASK_QUEUE_POLL_EMPTY_COUNTER,
              "workflow task polls that got no task"),
          entry(
              MetricsType.WORKFLOW_TASK_QUEUE_POLL_SUCCEED_COUNTER,
              "workflow task polls that got a task"),
          entry(MetricsType.ACTIVITY_POLL_NO_TASK_COUNTER, "activity task polls that got no task"),
          entry(
              MetricsType.ACTIVITY_SCHEDULE_TO_START_LATENCY,
              "time an activity task waited in its queue for a worker (a lasting rise: too few workers or slots)"),
          entry(MetricsType.ACTIVITY_EXEC_LATENCY, "time one activity attempt ran on this worker"),
          entry(
              MetricsType.ACTIVITY_SUCCEED_E2E_LATENCY,
              "time from an activity's scheduling to its success, retries included"),
          entry(
              MetricsType.ACTIVITY_EXEC_FAILED_COUNTER,
              "activity attempts that failed on this worker, by exception class (Keel's type: keel_activity_failures_total)"),
          entry(
              MetricsType.ACTIVITY_EXEC_CANCELLED_COUNTER,
              "activity attempts canceled while they ran"),
          entry(MetricsType.ACTIVITY_CANCELED_COUNTER, "activities that ended canceled"),
          entry(MetricsType.LOCAL_ACTIVITY_TOTAL_COUNTER, "local activity attempts started"),
          entry(
              MetricsType.LOCAL_ACTIVITY_EXECUTION_LATENCY, "time one local activity attempt ran"),
          entry(
              MetricsType.LOCAL_ACTIVITY_SUCCEED_E2E_LATENCY,
              "time from a local activity's scheduling to its success, retries included"),
          entry(
              MetricsType.LOCAL_ACTIVITY_EXEC_CANCELLED_COUNTER,
              "local activity attempts canceled while they ran"),
          entry(
              MetricsType.LOCAL_ACTIVITY_CANCELED_COUNTER, "local activities that ended canceled"),
          entry(
              MetricsType.LOCAL_ACTIVITY_EXEC_FAILED_COUNTER,
              "local activity attempts that failed, by exception class"),
          entry(
              MetricsType.LOCAL_ACTIVITY_FAILED_COUNTER,
              "local activities that failed for good, by exception class"),
          entry(MetricsType.WORKER_START_COUNTER, "workers started, by task queue and worker type"),
          entry(
              MetricsType.POLLER_START_COUNTER,
              "task pollers started, by task queue and worker type"),
          entry(MetricsType.NUM_POLLERS, "task pollers running now, by task queue and poller type"),
          entry(MetricsType.WORKER_TASK_SLOTS_AVAILABLE, "free task slots of each worker"),
          entry(MetricsType.WORKER_TASK_SLOTS_USED, "task slots of each worker in use"),
          entry(MetricsType.STICKY_CACHE_HIT, "workflow tasks served from the sticky cache"),
          entry(
              MetricsType.STICKY_CACHE_MISS,
              "workflow tasks that missed the sticky cache (full replay)"),
          entry(
              MetricsType.STICKY_CACHE_TOTAL_FORCED_EVICTION,
              "workflows evicted from the sticky cache"),
          entry(
              MetricsType.STICKY_CACHE_THREAD_FORCED_EVICTION,
              "cached workflows evicted to free a workflow thread"),
          entry(MetricsType.STICKY_CACHE_SIZE, "workflows in the sticky cache now"),
          entry(MetricsType.WORKFLOW_ACTIVE_THREAD_COUNT, "threads running workflow code now"));

  @Override
  public Meter.Id map(Meter.Id id) {
    if (!id.getName().startsWith(PREFIX)) {
      return id;
    }
    Set<String> keep = Set.copyOf(KEYS.getOrDefault(id.getName(), DEFAULT_KEYS));
    Tags kept = Tags.empty();
    for (Tag t : id.getTagsAsIterable()) {
      if (keep.contains(t.getKey())) {
        kept = kept.and(t);
      }
    }
    String help =
        id.getDescription() != null && !id.getDescription().isBlank()
            ? id.getDescription()
            : HELP.getOrDefault(
                id.getName(),
                "Temporal SDK metric (https://docs.temporal.io/references/sdk-metrics)");
    return new Meter.Id(id.getName(), kept, id.getBaseUnit(), help, id.getType());
  }

  @Override
  public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
    if (!id.getName().startsWith(PREFIX) || id.getType() != Meter.Type.TIMER) {
      return config;
    }
    DistributionStatisticConfig.Builder bounded =
        DistributionStatisticConfig.builder().percentilesHistogram(false);
    if (HISTOGRAMS.contains(id.getName())) {
      // timers record nanoseconds: bucket bounds are in them too
      bounded.serviceLevelObjectives(BUCKETS.stream().mapToDouble(Duration::toNanos).toArray());
    }
    return bounded.build().merge(config);
  }
}
