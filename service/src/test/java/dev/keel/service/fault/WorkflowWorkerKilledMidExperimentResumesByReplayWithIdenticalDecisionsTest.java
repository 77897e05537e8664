package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialState;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.fault.FaultStack.ChildWorker;
import dev.keel.workflows.experiment.ExperimentWorkflowImpl;
import dev.keel.workflows.experiment.TrialWorkflowImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CONTROL worker (experiment and trial workflows, catalog and GC activities) runs in its own
 * JVM and is killed with SIGKILL in the middle of an ASHA search; a new CONTROL worker process
 * rebuilds every workflow by replaying its history and the search goes on. Its decisions — which
 * trials, with which hyperparameters, trained how far, ending how — equal an uninterrupted run with
 * the same seed. Training is a closed formula in this JVM, so the search itself takes seconds.
 *
 * <p>With several trials in flight, ASHA's decisions depend on the order results arrive, so two
 * runs may differ even without a kill; there the proof is that the resumed experiment completes
 * with every trial accounted for, its history holds no failed workflow task, and the whole history,
 * before and after the kill, replays against today's code decision for decision.
 */
class WorkflowWorkerKilledMidExperimentResumesByReplayWithIdenticalDecisionsTest {
  private static final String CONFIG =
      """
      name: %s
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -4, maxval: -1, base: 10}
        width: {type: int, minval: 4, maxval: 32}
      searcher: {name: adaptive_asha, metric: validation_loss, smaller_is_better: true, max_trials: 14,
                 max_length: {batches: 64}, max_rungs: 3, divisor: 4, max_concurrent_trials: %d}
      reproducibility: {seed: 11}
      """;

  private static FaultStack stack;
  private static WorkerFactory trainers;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.start("killed-control");
    stack.ingest();
    trainers = WorkerFactory.newInstance(stack.client);
    trainers
        .newWorker(TaskQueues.train("cpu"))
        .registerActivitiesImplementations(new FormulaTrainer());
    trainers.start();
  }

  @AfterAll
  static void stopStack() {
    if (trainers != null) {
      trainers.shutdownNow();
    }
    if (stack != null) {
      stack.close();
    }
  }

  /** Validation loss is a closed formula of lr, width and length; each call takes ~100 ms. */
  static final class FormulaTrainer implements TrainingActivities {
    @Override
    public TrainResult train(TrainRequest r) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      double lr = r.getHparamsOrThrow("lr").getNumberValue();
      double width = r.getHparamsOrThrow("width").getNumberValue();
      long batches = r.getBaseBatches() + r.getTargetLength().getBatches();
      double loss =
          Math.pow(Math.log10(lr) + 2.5, 2) + Math.abs(width - 20) / 40.0 + 8.0 / (batches + 1);
      String uuid = r.getTrialId() + "-" + batches;
      return TrainResult.newBuilder()
          .setCheckpoint(
              CheckpointRef.newBuilder()
                  .setUuid(uuid)
                  .setTrialId(r.getTrialId())
                  .setExperimentId(r.getExperimentId())
                  .setBatches(batches)
                  .setSizeBytes(1)
                  .setUri(
                      stack.root.checkpoints()
                          + "/"
                          + r.getExperimentId()
                          + "/"
                          + r.getTrialId()
                          + "/"
                          + uuid
                          + "/"))
          .putValidationMetrics("validation_loss", loss)
          .setBatches(batches)
          .setAttempt(1)
          .build();
    }
  }

  @Test
  void theSearchAfterAKilledWorkflowWorkerDecidesExactlyLikeAnUninterruptedOne() throws Exception {
    List<ChildWorker> controls = new ArrayList<>();
    controls.add(stack.child("control-0", "--roles", "CONTROL", "--dev-server"));

    String reference =
        stack.startExperiment(
            FaultStack.config(CONFIG.formatted("reference", 1)),
            ExperimentRunOptions.getDefaultInstance());
    ExperimentResult uninterrupted = stack.result(reference, Duration.ofMinutes(2));
    assertEquals(ExperimentState.State.COMPLETED, uninterrupted.getState().getState());

    String id =
        stack.startExperiment(
            FaultStack.config(CONFIG.formatted("killed", 1)),
            ExperimentRunOptions.getDefaultInstance());
    // Mid-search: some trials done, more to come.
    FaultStack.await(
        "a third of the trials",
        Duration.ofMinutes(1),
        () ->
            ExperimentLauncher.state(stack.client, id).getTrialsList().stream()
                    .filter(t -> t.getCompletedLength().getBatches() > 0)
                    .count()
                >= 5);
    ExperimentState before = ExperimentLauncher.state(stack.client, id);
    controls.get(0).kill();
    controls.add(stack.child("control-1", "--roles", "CONTROL", "--dev-server"));
    ExperimentResult resumed = stack.result(id, Duration.ofMinutes(2));

    assertEquals(ExperimentState.State.COMPLETED, resumed.getState().getState());
    assertTrue(
        before.getTrialsCount() < resumed.getState().getTrialsCount(),
        "killed with "
            + before.getTrialsCount()
            + " trials started, ended with "
            + resumed.getState().getTrialsCount());
    assertEquals(decisions(uninterrupted.getState()), decisions(resumed.getState()));
    assertEquals(uninterrupted.getState().getBestTrialId(), resumed.getState().getBestTrialId());
    assertEquals(uninterrupted.getState().getBestMetric(), resumed.getState().getBestMetric());
    assertEquals(
        uninterrupted.getBestCheckpoint().getUuid(), resumed.getBestCheckpoint().getUuid());
    assertTrue(
        controls.get(1).logText().contains("Keel workers [CONTROL]"), controls.get(1).logText());
    System.out.printf(
        "control worker killed with %d of %d trials started; decisions of %d trials identical%n",
        before.getTrialsCount(),
        resumed.getState().getTrialsCount(),
        resumed.getState().getTrialsCount());
    controls.forEach(ChildWorker::kill);
  }

  @Test
  void withTrialsInFlightTheResumedSearchReplaysDecisionForDecision() throws Exception {
    ChildWorker first = stack.child("control-concurrent-0", "--roles", "CONTROL", "--dev-server");
    String id =
        stack.startExperiment(
            FaultStack.config(CONFIG.formatted("killed-concurrent", 4)),
            ExperimentRunOptions.getDefaultInstance());
    FaultStack.await(
        "a third of the trials",
        Duration.ofMinutes(1),
        () ->
            ExperimentLauncher.state(stack.client, id).getTrialsList().stream()
                    .filter(t -> t.getCompletedLength().getBatches() > 0)
                    .count()
                >= 5);
    ExperimentState before = ExperimentLauncher.state(stack.client, id);
    long unfinished =
        before.getTrialsList().stream()
            .filter(t -> t.getState() == TrialState.State.ACTIVE)
            .count();
    first.kill();
    ChildWorker second = stack.child("control-concurrent-1", "--roles", "CONTROL", "--dev-server");
    try {
      ExperimentResult resumed = stack.result(id, Duration.ofMinutes(2));
      assertEquals(ExperimentState.State.COMPLETED, resumed.getState().getState());
      assertTrue(
          before.getTrialsCount() < resumed.getState().getTrialsCount(),
          "killed with "
              + before.getTrialsCount()
              + " trials started, ended with "
              + resumed.getState().getTrialsCount());
      assertTrue(
          resumed.getState().getTrialsList().stream()
              .allMatch(t -> t.getState() == TrialState.State.COMPLETED),
          resumed.getState().getTrialsList().toString());

      List<String> replayed = new ArrayList<>();
      List<String> workflows = new ArrayList<>(List.of(id));
      resumed.getState().getTrialsList().forEach(t -> workflows.add(t.getWorkflowId()));
      for (String workflowId : workflows) {
        // every run of the experiment (continue-as-new) is one history; the trial's is one too
        WorkflowExecutionHistory history = stack.client.fetchHistory(workflowId);
        assertTrue(
            history.getEvents().stream()
                .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
            workflowId + " has a failed workflow task");
        WorkflowReplayer.replayWorkflowExecution(
            history, ExperimentWorkflowImpl.class, TrialWorkflowImpl.class);
        replayed.add(workflowId);
      }
      System.out.printf(
          "control worker killed with %d trials started (%d unfinished); %d histories replay identically%n",
          before.getTrialsCount(), unfinished, replayed.size());
    } finally {
      second.kill();
    }
  }

  /** Per trial: hyperparameters, asked-for and reached length, validated lengths, final state. */
  private static String decisions(ExperimentState s) {
    TreeMap<Long, String> out = new TreeMap<>();
    for (TrialState t : s.getTrialsList()) {
      out.put(
          t.getTrialId(),
          String.format(
              "hparams=%s target=%d completed=%d validated=%s state=%s error=%s",
              new TreeMap<>(t.getHparamsMap()).toString().replace('\n', ' '),
              t.getTargetLength().getBatches(),
              t.getCompletedLength().getBatches(),
              t.getCheckpointsList().stream()
                  .map(c -> Long.toString(c.getBatches()))
                  .collect(Collectors.joining(",")),
              t.getState(),
              t.getError()));
    }
    return out.entrySet().stream()
        .map(e -> e.getKey() + ": " + e.getValue())
        .collect(Collectors.joining("\n"));
  }
}
