package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.PipelineResult;
import dev.keel.service.schedule.PipelineSchedules;
import io.temporal.client.schedules.ScheduleDescription;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code keel schedule} creates a real Temporal Schedule that starts the pipeline. */
class ScheduledRetrainingIT {

  @Test
  void triggerNowStartsARunThatCompletes() throws Exception {
    String id = "it-nightly-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(
        0,
        RealTemporal.keel(
            "schedule",
            "create",
            id,
            "--cron",
            "0 3 * * *",
            "--overlap",
            "buffer-one",
            "--batches",
            "40"));
    try {
      ScheduleDescription before = RealTemporal.schedules().describe(id);
      assertEquals(0, before.getInfo().getNumActions());
      assertTrue(
          !before.getInfo().getNextActionTimes().isEmpty(),
          "a cron schedule has next action times");

      assertEquals(0, RealTemporal.keel("schedule", "trigger", id));
      RealTemporal.await(
          "the triggered run to be recorded",
          Duration.ofSeconds(60),
          () ->
              !PipelineSchedules.recentWorkflowIds(RealTemporal.schedules().describe(id))
                  .isEmpty());
      String run =
          PipelineSchedules.recentWorkflowIds(RealTemporal.schedules().describe(id)).get(0);
      assertTrue(run.startsWith("pipeline-fashion-mnist-demo-"), run);

      PipelineResult r =
          RealTemporal.client()
              .newUntypedWorkflowStub(run)
              .getResult(8, TimeUnit.MINUTES, PipelineResult.class);
      assertEquals(40, r.getCheckpoint().getBatches());
      assertTrue(
          r.getInference().getAccuracy() > 0.3, "accuracy " + r.getInference().getAccuracy());
      assertEquals(
          1,
          RealTemporal.listUntilFound(
                  "TemporalScheduledById = '" + id + "' AND KeelStage = 'done'",
                  1,
                  Duration.ofSeconds(30))
              .size());
      assertEquals(0, RealTemporal.keel("schedule", "describe", id));
    } finally {
      RealTemporal.keel("schedule", "delete", id);
    }
  }

  @Test
  void pausedScheduleStartsNothingUntilUnpaused() {
    String id = "it-paused-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(
        0,
        RealTemporal.keel(
            "schedule",
            "create",
            id,
            "--cron",
            "@every 2s",
            "--overlap",
            "skip",
            "--paused",
            "--batches",
            "20"));
    try {
      // Absence takes time to show: five would-be firings.
      KeelDevProcess.sleep(10_000);
      ScheduleDescription paused = RealTemporal.schedules().describe(id);
      assertTrue(paused.getSchedule().getState().isPaused());
      assertEquals(0, paused.getInfo().getNumActions());
      assertTrue(RealTemporal.list("TemporalScheduledById = '" + id + "'").isEmpty());

      assertEquals(0, RealTemporal.keel("schedule", "unpause", id));
      RealTemporal.await(
          "an unpaused schedule to start a run",
          Duration.ofSeconds(60),
          () -> RealTemporal.schedules().describe(id).getInfo().getNumActions() >= 1);
      assertEquals(0, RealTemporal.keel("schedule", "pause", id, "--note", "done testing"));
      assertTrue(RealTemporal.schedules().describe(id).getSchedule().getState().isPaused());
    } finally {
      RealTemporal.keel("schedule", "delete", id);
      RealTemporal.terminateScheduledRuns(id);
    }
  }
}
