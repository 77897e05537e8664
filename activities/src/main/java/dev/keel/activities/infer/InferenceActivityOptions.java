package dev.keel.activities.infer;

import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link InferenceActivities}. */
public final class InferenceActivityOptions {
  public static final Duration START_TO_CLOSE = Duration.ofHours(2);
  public static final Duration HEARTBEAT = Duration.ofSeconds(60);
  public static final int MAX_ATTEMPTS = 3;

  private InferenceActivityOptions() {}

  public static ActivityOptions forScoring(String summary) {
    return ActivityOptions.newBuilder()
        .setSummary(summary)
        .setTaskQueue(TaskQueues.INFER)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setHeartbeatTimeout(HEARTBEAT)
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(MAX_ATTEMPTS).build())
        .build();
  }
}
