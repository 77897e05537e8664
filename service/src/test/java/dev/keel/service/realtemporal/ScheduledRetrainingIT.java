package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.PipelineResult;
import dev.keel.service.cli.KeelCli;
import dev.keel.service.schedule.PipelineSchedules;
import io.temporal.client.schedules.ScheduleDescription;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code keel schedule} creates a real Temporal Schedule that starts the pipeline. */
class ScheduledRetrainingIT {

  private static int keel(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--temporal";
    all[args.length + 1] = RealTemporal.stack().address();
    return KeelCli.run(all);
  }

  private static PipelineSchedules schedules() {
    return new PipelineSchedules(RealTemporal.stubs(), "default");
  }

  @Test
  void triggerNowStartsARunThatCompletes() throws Exception {
    String id = "it-nightly-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(0, keel("schedule", "create", id, "--cron", "0 3 * * *", "--overlap", "buffer-one", "--batches", "40"));
    try {
      ScheduleDescription before = schedules().describe(id);
      assertEquals(0, before.getInfo().getNumActions());
      assertTrue(!before.getInfo().getNextActionTimes().isEmpty(), "a cron schedule has next action times");

      assertEquals(0, keel("schedule", "trigger", id));
      RealTemporal.await("the triggered run to be recorded", Duration.ofSeconds(60),
          () -> !PipelineSchedules.recentWorkflowIds(schedules().describe(id)).isEmpty());
      String run = PipelineSchedules.recentWorkflowIds(schedules().describe(id)).get(0);
      assertTrue(run.startsWith("pipeline-fashion-mnist-demo-"), run);

      PipelineResult r = RealTemporal.client().newUntypedWorkflowStub(run).getResult(8, TimeUnit.MINUTES, PipelineResult.class);
      assertEquals(40, r.getCheckpoint().getBatches());
      assertTrue(r.getInference().getAccuracy() > 0.3, "accuracy " + r.getInference().getAccuracy());
      assertEquals(1, RealTemporal.listUntilFound("TemporalScheduledById = '" + id + "' AND KeelStage = 'done'", 1,
          Duration.ofSeconds(30)).size());
      assertEquals(0, keel("schedule", "describe", id));
    } finally {
      keel("schedule", "delete", id);
    }
  }

  @Test
  void pausedScheduleStartsNothingUntilUnpaused() {
    String id = "it-paused-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(0, keel("schedule", "create", id, "--cron", "@every 2s", "--overlap", "skip", "--paused", "--batches", "20"));
    try {
      // Absence takes time to show: five would-be firings.
      KeelDevProcess.sleep(10_000);
      ScheduleDescription paused = schedules().describe(id);
      assertTrue(paused.getSchedule().getState().isPaused());
      assertEquals(0, paused.getInfo().getNumActions());
      assertTrue(RealTemporal.list("TemporalScheduledById = '" + id + "'").isEmpty());

      assertEquals(0, keel("schedule", "unpause", id));
      RealTemporal.await("an unpaused schedule to start a run", Duration.ofSeconds(60),
          () -> schedules().describe(id).getInfo().getNumActions() >= 1);
      assertEquals(0, keel("schedule", "pause", id, "--note", "done testing"));
      assertTrue(schedules().describe(id).getSchedule().getState().isPaused());
    } finally {
      keel("schedule", "delete", id);
      List<String> runs = RealTemporal.list("TemporalScheduledById = '" + id + "' AND ExecutionStatus = 'Running'").stream()
          .map(i -> i.getExecution().getWorkflowId()).toList();
      for (String w : runs) {
        try {
          RealTemporal.client().newUntypedWorkflowStub(w).terminate("test cleanup");
        } catch (RuntimeException alreadyClosed) {
          // a 20-batch run may finish between the query and the terminate
        }
      }
    }
  }
}
