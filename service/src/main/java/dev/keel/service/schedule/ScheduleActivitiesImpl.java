package dev.keel.service.schedule;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.schedule.ScheduleActivities;
import dev.keel.api.v1.TriggerScheduleRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.failure.ApplicationFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ScheduleActivities} through the worker's own Temporal connection ({@link
 * PipelineSchedules}): a drifted inference run triggers the scheduled retraining now. A schedule
 * that does not exist is refused non-retryably; an unreachable frontend is retried by Temporal.
 */
public final class ScheduleActivitiesImpl implements ScheduleActivities {
  private static final Logger log = LoggerFactory.getLogger(ScheduleActivitiesImpl.class);

  private final PipelineSchedules schedules;

  public ScheduleActivitiesImpl(PipelineSchedules schedules) {
    this.schedules = schedules;
  }

  @Override
  public void trigger(TriggerScheduleRequest request) {
    String id = request.getScheduleId();
    if (id.isBlank()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "schedule_id: required", FailureTypes.INVALID_ARGUMENT);
    }
    try {
      schedules.trigger(id);
      log.info("triggered schedule {}: {}", id, request.getReason());
    } catch (RuntimeException e) {
      if (notFound(e)) {
        throw ApplicationFailure.newNonRetryableFailure(
            "schedule '" + id + "' does not exist (keel schedule create makes one)",
            FailureTypes.SCHEDULE_NOT_FOUND);
      }
      throw e;
    }
  }

  private static boolean notFound(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof StatusRuntimeException s
          && s.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }
}
