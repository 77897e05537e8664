package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.util.JsonFormat;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.DriftAction;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.service.schedule.PipelineSchedules;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.drift.DriftTable;
import dev.keel.workflows.inference.InferenceWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A pipeline whose inference run drifts past {@code inference.drift.threshold} triggers the
 * Temporal Schedule its {@code on_drift} names, on the Temporal CLI's dev server: the schedule is
 * paused, so only the trigger can start its retraining run. A schedule that does not exist is
 * reported, not retried, and does not fail the run.
 */
class DriftedRunTriggersItsRetrainingScheduleIT {

  @Test
  void aDriftedRunTriggersThePausedRetrainingSchedule() throws Exception {
    String schedule = "it-drift-retrain-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(
        0,
        RealTemporal.keel(
            "schedule", "create", schedule, "--cron", "0 3 * * *", "--paused", "--batches", "20"));
    try {
      // So small a threshold that any real scoring drifts past it: this test is about the trigger
      // (the drift measure itself is tested on shifted data in the inference module).
      String demo = RealTemporal.demoJson("drift-it", 40);
      String json =
          demo.substring(0, demo.length() - 1)
              + ",\"inference\":{\"drift\":{\"threshold\":1e-9,"
              + "\"on_drift\":{\"trigger_schedule\":\""
              + schedule
              + "\"}}}}";
      PipelineRequest.Builder request = PipelineRequest.newBuilder();
      JsonFormat.parser().merge(json, request);
      String id = "drift-it-" + UUID.randomUUID().toString().substring(0, 8);
      PipelineResult r =
          RealTemporal.client()
              .newWorkflowStub(
                  PipelineWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setWorkflowId(id)
                      .setTaskQueue(TaskQueues.CONTROL)
                      .setWorkflowExecutionTimeout(Duration.ofMinutes(10))
                      .build())
              .run(request.build());

      DriftReport drift = r.getInference().getDrift();
      assertTrue(drift.getDrifted(), drift.toString());
      assertEquals(schedule, drift.getTriggeredSchedule(), drift.toString());
      assertEquals("", drift.getTriggerError());
      assertEquals(
          r.getData(), drift.getReference(), "the reference is the data the model trained on");
      RealTemporal.await(
          "the triggered retraining run",
          Duration.ofSeconds(60),
          () ->
              !PipelineSchedules.recentWorkflowIds(RealTemporal.schedules().describe(schedule))
                  .isEmpty());
      assertTrue(
          RealTemporal.schedules().describe(schedule).getSchedule().getState().isPaused(),
          "only the trigger started it");

      List<DriftRecord> recorded =
          new DriftTable(StorageRoot.of(RealTemporal.stack().storage().toString()))
              .reports(r.getModel().getName() + "/" + r.getModel().getVersion());
      assertEquals(1, recorded.size());
      assertEquals(schedule, recorded.get(0).getReport().getTriggeredSchedule());
      assertEquals(r.getInference().getRunId(), recorded.get(0).getRunId());

      // A schedule that does not exist: the trigger fails at once (not retried), the run still
      // completes and
      // its report says why.
      InferenceResult missing =
          RealTemporal.client()
              .newWorkflowStub(
                  InferenceWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setWorkflowId(id + "-missing-schedule")
                      .setTaskQueue(TaskQueues.CONTROL)
                      .setWorkflowExecutionTimeout(Duration.ofMinutes(5))
                      .build())
              .run(
                  InferenceRequest.newBuilder()
                      .setCheckpoint(r.getModel().getCheckpoint())
                      .setData(r.getData())
                      .setSplit("test")
                      .setEvaluateOnly(true)
                      .setModel(r.getModel().getConfig().getModel())
                      .putAllHparams(r.getModel().getHparamsMap())
                      .setModelVersion(r.getModel().getName() + "/" + r.getModel().getVersion())
                      .setDrift(
                          DriftConfig.newBuilder()
                              .setThreshold(1e-9)
                              .setOnDrift(
                                  DriftAction.newBuilder()
                                      .setTriggerSchedule(schedule + "-missing")))
                      .build());
      assertTrue(missing.getDrift().getDrifted());
      assertEquals("", missing.getDrift().getTriggeredSchedule());
      assertEquals(
          "schedule '" + schedule + "-missing' does not exist (keel schedule create makes one)",
          missing.getDrift().getTriggerError());
    } finally {
      RealTemporal.keel("schedule", "delete", schedule);
      RealTemporal.terminateScheduledRuns(schedule);
    }
  }
}
