package dev.keel.activities.schedule;

import dev.keel.api.v1.TriggerScheduleRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * A Temporal Schedule's actions, for workflows (which cannot call the client themselves); on {@code
 * keel-control}. Needs a server with the Schedule API (the Temporal CLI's dev server or a cluster).
 */
@ActivityInterface
public interface ScheduleActivities {

  /**
   * Starts one run of the schedule's action now, under its overlap policy (also when it is paused).
   * A schedule that does not exist fails non-retryably with {@code ScheduleNotFound}.
   */
  @ActivityMethod(name = "TriggerSchedule")
  void trigger(TriggerScheduleRequest request);
}
