package dev.keel.activities.pool;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * How the provisioner runs the pool activities: a few attempts each, then the workflow records the
 * failure and backs off itself (a provider that stays down is never retried in a tight loop).
 */
public final class PoolActivityOptions {
  /** Attempts of one observation or request before the provisioner records the failure. */
  public static final int MAX_ATTEMPTS = 3;

  /** Listing the running experiments and asking each (and its training trials) where they stand. */
  public static final Duration OBSERVE_TIMEOUT = Duration.ofMinutes(2);

  /** One Auto Scaling or EC2 call (with the SDK's own retries). */
  public static final Duration CALL_TIMEOUT = Duration.ofMinutes(1);

  /** A long request (tofu apply) heartbeats, so a dead worker is noticed within this. */
  public static final Duration HEARTBEAT_TIMEOUT = Duration.ofMinutes(1);

  private PoolActivityOptions() {}

  public static ActivityOptions forDemand(String pool) {
    return options("observe the demand of pool " + pool, OBSERVE_TIMEOUT, null);
  }

  public static ActivityOptions forDescribe(String pool) {
    return options("describe pool " + pool, CALL_TIMEOUT, null);
  }

  /**
   * @param requestTimeout how long the actuator may take (a tofu apply's timeout); the activity
   *     gets a minute more, and heartbeats when it is longer than {@link #CALL_TIMEOUT}
   */
  public static ActivityOptions forResize(String summary, Duration requestTimeout) {
    boolean slow = requestTimeout.compareTo(CALL_TIMEOUT) > 0;
    return options(
        summary, requestTimeout.plus(Duration.ofMinutes(1)), slow ? HEARTBEAT_TIMEOUT : null);
  }

  private static ActivityOptions options(String summary, Duration timeout, Duration heartbeat) {
    ActivityOptions.Builder b =
        ActivityOptions.newBuilder()
            .setTaskQueue(TaskQueues.CONTROL)
            .setSummary(summary)
            .setStartToCloseTimeout(timeout)
            .setRetryOptions(
                RetryOptions.newBuilder()
                    .setMaximumAttempts(MAX_ATTEMPTS)
                    .setInitialInterval(Duration.ofSeconds(2))
                    .setBackoffCoefficient(2)
                    .setDoNotRetry(
                        FailureTypes.POOL_PROVIDER_REFUSED, FailureTypes.INVALID_POOL_SPEC)
                    .build());
    if (heartbeat != null) {
      b.setHeartbeatTimeout(heartbeat);
    }
    return b.build();
  }
}
