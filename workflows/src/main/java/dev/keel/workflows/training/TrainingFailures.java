package dev.keel.workflows.training;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrainProgress;
import io.temporal.common.converter.Values;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import java.util.List;

/** What a workflow reads out of a failed training activity. */
public final class TrainingFailures {
  private TrainingFailures() {}

  /**
   * Checkpoints a failed step committed: the training activity attaches them to its failure, and a
   * worker that died leaves them in its last heartbeat. Unreadable details count as none.
   */
  public static List<CheckpointRef> writtenBeforeFailure(ActivityFailure e) {
    try {
      for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
        Values details = null;
        if (c instanceof ApplicationFailure a) {
          details = a.getDetails();
        } else if (c instanceof TimeoutFailure t) {
          details = t.getLastHeartbeatDetails();
        }
        if (details != null && details.getSize() > 0) {
          return details.get(0, TrainProgress.class).getWrittenCheckpointsList();
        }
      }
    } catch (RuntimeException unreadable) {
      // e.g. details written by another activity implementation
    }
    return List.of();
  }

  /** The innermost application failure in a chain, or null. */
  public static ApplicationFailure applicationFailure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ApplicationFailure a) {
        return a;
      }
    }
    return null;
  }
}
