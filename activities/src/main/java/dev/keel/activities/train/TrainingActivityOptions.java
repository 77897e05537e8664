package dev.keel.activities.train;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;
import java.util.Arrays;

/**
 * How every caller of {@link TrainingActivities} runs it: a pipeline's training and a trial's step
 * alike.
 */
public final class TrainingActivityOptions {
  /**
   * A dead worker is detected by missing heartbeats; this bound only stops a worker that hangs
   * while still heartbeating, so it is as long as the longest training anyone runs in one activity.
   */
  public static final Duration START_TO_CLOSE = Duration.ofDays(2);

  public static final Duration INITIAL_RETRY_INTERVAL = Duration.ofSeconds(1);
  public static final Duration MAX_RETRY_INTERVAL = Duration.ofSeconds(30);

  /** Retrying cannot fix these: the hyperparameters, the request or the checkpoint is bad. */
  static final String[] DO_NOT_RETRY = {
    FailureTypes.INVALID_HYPERPARAMETER,
    FailureTypes.INVALID_TRAIN_REQUEST,
    FailureTypes.CORRUPT_CHECKPOINT,
    FailureTypes.GANG_MISMATCH
  };

  private TrainingActivityOptions() {}

  /**
   * The restarts after worker failures a trial may use, and how many earlier steps of it used.
   *
   * @param allowed restarts the whole trial may use ({@code max_restarts})
   * @param used restarts earlier steps of the trial already used
   */
  public record Restarts(int allowed, int used) {
    /** A step that starts the trial afresh. */
    public static Restarts unused(int allowed) {
      return new Restarts(allowed, 0);
    }

    /**
     * The first attempt plus the restarts left; a trial that used them all still gets its one
     * attempt.
     */
    public int attempts() {
      return Math.max(1, allowed - used + 1);
    }
  }

  /**
   * @param pool resource pool whose {@code keel-train-<pool>} queue trains
   * @param heartbeat how long a worker may stay silent before its attempt counts as dead
   */
  public static ActivityOptions forTrial(
      String pool, Restarts restarts, Duration heartbeat, String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.train(pool))
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setHeartbeatTimeout(heartbeat)
        // A killed trial ends only once its worker stopped training (or missed its heartbeats).
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setInitialInterval(INITIAL_RETRY_INTERVAL)
                .setMaximumInterval(MAX_RETRY_INTERVAL)
                .setMaximumAttempts(restarts.attempts())
                .setDoNotRetry(DO_NOT_RETRY)
                .build())
        .build();
  }

  /**
   * One rank of a gang: a single attempt, because a lost rank stalls every other rank, so the
   * workflow restarts the whole gang from its last checkpoint instead (counted as one restart).
   * Cancelling does not wait for a rank whose worker died: the others fail within the collective
   * timeout anyway.
   */
  public static ActivityOptions forGangRank(String pool, Duration heartbeat, String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.train(pool))
        .setSummary(summary)
        .setStartToCloseTimeout(START_TO_CLOSE)
        .setHeartbeatTimeout(heartbeat)
        .setCancellationType(ActivityCancellationType.TRY_CANCEL)
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build();
  }

  /**
   * Whether a training failure of this type is the input's fault, so neither a retry nor a gang
   * restart can help.
   */
  public static boolean isPermanent(String failureType) {
    return Arrays.asList(DO_NOT_RETRY).contains(failureType);
  }
}
