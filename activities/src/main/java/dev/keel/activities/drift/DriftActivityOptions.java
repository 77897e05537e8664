package dev.keel.activities.drift;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link DriftActivities}; both steps run on {@code keel-control}. */
public final class DriftActivityOptions {
  /** Reading a training split once (60,000 images are a few seconds), or one small commit. */
  public static final Duration START_TO_CLOSE = Duration.ofMinutes(10);

  public static final Duration MAX_RETRY_INTERVAL = Duration.ofMinutes(1);

  /** A storage outage of up to about 10 minutes is waited out; longer ones fail the run. */
  public static final int MAX_ATTEMPTS = 10;

  private DriftActivityOptions() {}

  public static ActivityOptions forDrift(String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setMaximumInterval(MAX_RETRY_INTERVAL)
                .setMaximumAttempts(MAX_ATTEMPTS)
                .setDoNotRetry(
                    FailureTypes.INVALID_TABLE,
                    FailureTypes.INVALID_ARGUMENT,
                    FailureTypes.STORAGE_UNUSABLE)
                .build())
        .build();
  }
}
