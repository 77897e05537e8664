package dev.keel.activities.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.activities.FailureTypes;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TrainingActivityOptionsTest {

  @Test
  void aStepGetsTheRestartsItsTrialHasLeftAndAlwaysOneAttempt() {
    assertEquals(6, options(5, 0).getRetryOptions().getMaximumAttempts());
    assertEquals(4, options(5, 2).getRetryOptions().getMaximumAttempts());
    assertEquals(1, options(5, 5).getRetryOptions().getMaximumAttempts());
    assertEquals(1, options(5, 7).getRetryOptions().getMaximumAttempts());
    assertEquals(1, options(0, 0).getRetryOptions().getMaximumAttempts());
  }

  @Test
  void trainsOnThePoolsQueueAndNeverRetriesWhatARetryCannotFix() {
    ActivityOptions o = options(3, 0);
    assertEquals("keel-train-gpu", o.getTaskQueue());
    assertEquals(Duration.ofSeconds(42), o.getHeartbeatTimeout());
    assertEquals(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED, o.getCancellationType());
    assertArrayEquals(
        new String[] {
          FailureTypes.INVALID_HYPERPARAMETER,
          FailureTypes.INVALID_TRAIN_REQUEST,
          FailureTypes.CORRUPT_CHECKPOINT,
          FailureTypes.GANG_MISMATCH
        },
        o.getRetryOptions().getDoNotRetry());
    assertEquals(
        "keel-train-cpu",
        TrainingActivityOptions.forTrial(
                "", TrainingActivityOptions.Restarts.unused(3), Duration.ofSeconds(1), "s")
            .getTaskQueue());
  }

  @Test
  void aRankIsTriedOnceBecauseTheWorkflowRestartsItsWholeGang() {
    ActivityOptions o =
        TrainingActivityOptions.forGangRank("gpu", Duration.ofSeconds(42), "rank 1");
    assertEquals("keel-train-gpu", o.getTaskQueue());
    assertEquals(1, o.getRetryOptions().getMaximumAttempts());
    assertEquals(Duration.ofSeconds(42), o.getHeartbeatTimeout());
    assertEquals(ActivityCancellationType.TRY_CANCEL, o.getCancellationType());
    assertEquals(true, TrainingActivityOptions.isPermanent(FailureTypes.GANG_MISMATCH));
    assertEquals(false, TrainingActivityOptions.isPermanent("CollectiveException"));
  }

  private static ActivityOptions options(int maxRestarts, int used) {
    return TrainingActivityOptions.forTrial(
        "gpu",
        new TrainingActivityOptions.Restarts(maxRestarts, used),
        Duration.ofSeconds(42),
        "train");
  }
}
