package dev.keel.activities.infer;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link InferenceActivities}; every step runs on {@code keel-infer}. */
public final class InferenceActivityOptions {
  /** One partition: its rows read, scored and written (a partition is a few thousand rows). */
  public static final Duration PARTITION_START_TO_CLOSE = Duration.ofMinutes(30);

  /**
   * Planning and committing read or write only Delta logs, file listings and a checkpoint's
   * manifest.
   */
  public static final Duration LIGHT_START_TO_CLOSE = Duration.ofMinutes(10);

  public static final int MAX_ATTEMPTS = 3;

  private InferenceActivityOptions() {}

  /**
   * Scoring one partition: a worker that dies is noticed by its missing heartbeats.
   *
   * @param heartbeat how long a worker may stay silent before its attempt counts as dead
   */
  public static ActivityOptions forPartition(String summary, Duration heartbeat) {
    return ActivityOptions.newBuilder()
        .setSummary(summary)
        .setTaskQueue(TaskQueues.INFER)
        .setStartToCloseTimeout(PARTITION_START_TO_CLOSE)
        .setHeartbeatTimeout(heartbeat)
        .setRetryOptions(retries())
        .build();
  }

  /**
   * Planning, committing and discarding a run; a worker that dies is noticed by its missing
   * heartbeats too.
   */
  public static ActivityOptions forRun(String summary, Duration heartbeat) {
    return ActivityOptions.newBuilder()
        .setSummary(summary)
        .setTaskQueue(TaskQueues.INFER)
        .setStartToCloseTimeout(LIGHT_START_TO_CLOSE)
        .setHeartbeatTimeout(heartbeat)
        .setRetryOptions(retries())
        .build();
  }

  private static RetryOptions retries() {
    return RetryOptions.newBuilder()
        .setMaximumAttempts(MAX_ATTEMPTS)
        .setDoNotRetry(
            FailureTypes.INVALID_INFERENCE_REQUEST,
            FailureTypes.CORRUPT_CHECKPOINT,
            FailureTypes.STORAGE_UNUSABLE)
        .build();
  }
}
