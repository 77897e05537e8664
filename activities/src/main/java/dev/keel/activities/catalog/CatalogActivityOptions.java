package dev.keel.activities.catalog;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link CatalogActivities}. */
public final class CatalogActivityOptions {
  /**
   * Catalog commits and table lookups take seconds, so a short bound limits how long a control
   * worker that died mid-activity holds up the experiment.
   */
  public static final Duration START_TO_CLOSE = Duration.ofMinutes(1);

  public static final Duration MAX_RETRY_INTERVAL = Duration.ofMinutes(1);

  /** A storage outage of up to about 20 minutes is waited out; longer ones fail the caller. */
  public static final int MAX_ATTEMPTS = 20;

  private CatalogActivityOptions() {}

  public static ActivityOptions forCatalog(String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setMaximumInterval(MAX_RETRY_INTERVAL)
                .setMaximumAttempts(MAX_ATTEMPTS)
                .setDoNotRetry(FailureTypes.INVALID_TABLE, FailureTypes.INVALID_ARGUMENT)
                .build())
        .build();
  }
}
