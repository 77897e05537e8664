package dev.keel.activities.checkpoint;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link CheckpointGcActivities}. */
public final class CheckpointGcActivityOptions {
  /**
   * A big collection may run long; the heartbeat per checkpoint notices a dead control worker in
   * seconds.
   */
  public static final Duration START_TO_CLOSE = Duration.ofHours(1);

  public static final Duration HEARTBEAT = Duration.ofSeconds(30);
  public static final Duration MAX_RETRY_INTERVAL = Duration.ofMinutes(1);
  public static final int MAX_ATTEMPTS = 20;

  private CheckpointGcActivityOptions() {}

  public static ActivityOptions forCollection(String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setHeartbeatTimeout(HEARTBEAT)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setMaximumInterval(MAX_RETRY_INTERVAL)
                .setMaximumAttempts(MAX_ATTEMPTS)
                .setDoNotRetry(FailureTypes.CHECKPOINT_DELETION_REFUSED)
                .build())
        .build();
  }
}
