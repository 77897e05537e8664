package dev.keel.activities.schedule;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link ScheduleActivities}. */
public final class ScheduleActivityOptions {
  /** One call to the Temporal frontend. */
  public static final Duration START_TO_CLOSE = Duration.ofSeconds(30);

  /** A frontend that stays unreachable this long fails the trigger (the caller records why). */
  public static final int MAX_ATTEMPTS = 5;

  private ScheduleActivityOptions() {}

  public static ActivityOptions forTrigger(String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setMaximumAttempts(MAX_ATTEMPTS)
                .setDoNotRetry(FailureTypes.SCHEDULE_NOT_FOUND, FailureTypes.INVALID_ARGUMENT)
                .build())
        .build();
  }
}
