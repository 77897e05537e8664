package dev.keel.activities.registry;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link ModelRegistryActivities}. */
public final class ModelRegistryActivityOptions {
  /** Copying one checkpoint and one commit: seconds, even on S3. */
  public static final Duration START_TO_CLOSE = Duration.ofMinutes(5);

  public static final Duration MAX_RETRY_INTERVAL = Duration.ofMinutes(1);

  /** A storage outage of up to about 20 minutes is waited out; longer ones fail the caller. */
  public static final int MAX_ATTEMPTS = 20;

  private ModelRegistryActivityOptions() {}

  public static ActivityOptions forRegistry(String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setMaximumInterval(MAX_RETRY_INTERVAL)
                .setMaximumAttempts(MAX_ATTEMPTS)
                .setDoNotRetry(
                    FailureTypes.INVALID_MODEL,
                    FailureTypes.INVALID_ARGUMENT,
                    FailureTypes.CORRUPT_CHECKPOINT,
                    FailureTypes.INVALID_TABLE)
                .build())
        .build();
  }
}
