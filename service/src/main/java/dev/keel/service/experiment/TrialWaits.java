package dev.keel.service.experiment;

import com.google.protobuf.Timestamp;
import dev.keel.activities.TaskQueues;
import dev.keel.service.visibility.WorkflowDescriptions;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.Optional;

/**
 * Why an active trial is not training, as only the server can tell: its {@code Train} activities
 * (one per rank) that no worker of the pool has taken. The workflow itself cannot see this (it
 * hears of an activity only when it ends), so readers of the experiment view ask here.
 */
public final class TrialWaits {
  /** The training activity's type (TrainingActivities). */
  private static final String TRAIN = "Train";

  /**
   * @param since the earliest schedule of the Train activities still waiting for a worker
   */
  public record Wait(String reason, Instant since) {}

  private TrialWaits() {}

  /**
   * The trial's wait, or empty when it trains, is between steps, waits to retry a failed step, or
   * has ended.
   *
   * @param slots the trial's {@code slots_per_trial}
   */
  public static Optional<Wait> of(
      WorkflowClient client, String trialWorkflowId, int slots, String pool, Instant now) {
    Optional<DescribeWorkflowExecutionResponse> described =
        WorkflowDescriptions.describe(client, trialWorkflowId);
    if (described.isEmpty()
        || described.get().getWorkflowExecutionInfo().getStatus()
            != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return Optional.empty();
    }
    int started = 0;
    Instant since = null;
    for (PendingActivityInfo a : described.get().getPendingActivitiesList()) {
      if (!a.getActivityType().getName().equals(TRAIN)) {
        continue;
      }
      if (a.getState() != PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED) {
        started++;
        continue;
      }
      if (a.hasNextAttemptScheduleTime() && instant(a.getNextAttemptScheduleTime()).isAfter(now)) {
        return Optional.empty(); // backing off before a retry: not waiting for a slot
      }
      Instant scheduled = a.hasScheduledTime() ? instant(a.getScheduledTime()) : now;
      since = since == null || scheduled.isBefore(since) ? scheduled : since;
    }
    if (since == null) {
      return Optional.empty();
    }
    int size = Math.max(1, slots);
    String reason =
        size == 1
            ? "waiting for a slot of pool "
                + pool
                + ": no worker polling "
                + TaskQueues.train(pool)
                + " has taken its step"
            : "waiting for "
                + size
                + " slots of pool "
                + pool
                + " ("
                + Math.min(started, size)
                + " of "
                + size
                + " ranks started)";
    return Optional.of(new Wait(reason, since));
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }
}
