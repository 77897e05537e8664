package dev.keel.activities.etl;

import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** How workflows run {@link IngestActivities}. */
public final class IngestActivityOptions {
  /**
   * Fashion-MNIST ingests in well under a minute; the bound leaves room for bigger sources and slow
   * storage.
   */
  public static final Duration START_TO_CLOSE = Duration.ofMinutes(30);

  /**
   * Ingest is idempotent, so retries are safe; its own failures that retrying cannot fix are
   * non-retryable.
   */
  public static final int MAX_ATTEMPTS = 5;

  private IngestActivityOptions() {}

  /**
   * @param heartbeat how long an ETL worker may stay silent before its attempt counts as dead and
   *     the ingest goes to another worker (it heartbeats while it decodes and writes)
   */
  public static ActivityOptions forIngest(String summary, Duration heartbeat) {
    return ActivityOptions.newBuilder()
        .setSummary(summary)
        .setTaskQueue(TaskQueues.ETL)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setHeartbeatTimeout(heartbeat)
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(MAX_ATTEMPTS).build())
        .build();
  }
}
