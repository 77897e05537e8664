package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.pipeline.PipelineLauncher;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code kill -9} of the whole {@code keel dev} (workers and, through its watchdog, the Temporal
 * server) in the middle of training; a restart on the same storage root finishes the pipeline from
 * the last checkpoint, with the history from before the crash intact.
 */
class KillNineMidTrainingIT {
  private static final long BATCHES = 400;

  @Test
  void pipelineInterruptedByAStackRestartFinishesAfterIt() throws Exception {
    KeelDevProcess stack = RealTemporal.stack();
    PipelineRequest.Builder b =
        DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), BATCHES).toBuilder()
            .setName("it-kill9");
    b.getExperimentBuilder().setMinCheckpointPeriod(Length.newBuilder().setBatches(40));
    String id = PipelineLauncher.start(RealTemporal.client(), b.build());

    // The worker's heartbeats reach the server only every 0.8 x heartbeat timeout, so watch the
    // checkpoints on disk instead: kill once the first one is written and well before the last.
    String experimentId = ExperimentWorkflow.childId(id);
    Path checkpoints =
        stack.storage().resolve("checkpoints").resolve(experimentId).resolve("trial-1");
    RealTemporal.await(
        "training to write its first checkpoint",
        Duration.ofMinutes(5),
        () -> count(checkpoints) >= 1);
    boolean running =
        RealTemporal.list("WorkflowId = '" + id + "' AND ExecutionStatus = 'Running'").size() == 1;
    stack.kill9();
    assertTrue(running, "the pipeline finished before the kill; lengthen the run");
    long atKill = count(checkpoints);
    stack.start();

    PipelineResult r =
        RealTemporal.client()
            .newUntypedWorkflowStub(id)
            .getResult(8, TimeUnit.MINUTES, PipelineResult.class);
    assertEquals(BATCHES, r.getCheckpoint().getBatches());
    assertTrue(r.getInference().getAccuracy() > 0.5, "accuracy " + r.getInference().getAccuracy());

    int trainAttempts = 0;
    long started = 0;
    for (HistoryEvent e : RealTemporal.client().fetchHistory(id).getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
        started++;
      }
    }
    // the training ran in the search's trial, a grandchild of the pipeline
    for (HistoryEvent e :
        RealTemporal.client().fetchHistory(TrialWorkflow.workflowId(experimentId, 1)).getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        trainAttempts =
            Math.max(trainAttempts, e.getActivityTaskStartedEventAttributes().getAttempt());
      }
    }
    assertEquals(1, started, "one run, kept across the restart");
    assertTrue(
        trainAttempts >= 2,
        "the training activity was retried after the crash (attempt " + trainAttempts + ")");
    RealTemporal.writeArtifact(
        "kill9.txt",
        "killed keel dev after "
            + atKill
            + " checkpoint(s) of a "
            + BATCHES
            + "-batch run"
            + "; finished after restart with accuracy "
            + r.getInference().getAccuracy()
            + "\n");
  }

  private static long count(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> Files.isDirectory(p) && !p.getFileName().toString().startsWith("."))
          .count();
    } catch (IOException e) {
      return 0;
    }
  }
}
