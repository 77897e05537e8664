package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrialState;
import dev.keel.service.fault.FaultStack.ChildWorker;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code resources.slots_per_trial: 2} end to end: the trial's two ranks run in two {@code keel
 * worker} processes, find each other through the trial workflow and train one model over c10d Gloo.
 * SIGKILL of one rank's worker after rank 0's first checkpoint makes the other rank fail (not
 * hang); the trial restarts its whole gang once, from that checkpoint, on the survivor and a fresh
 * worker; and the final parameters equal those of an uninterrupted 2-rank run byte for byte.
 */
class TwoSlotTrialKilledInOneRankRestartsItsGangAndEndsBitIdenticalTest {
  private static final String CONFIG =
      """
      name: %s
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 64, width: 8, dropout: 0.1, optimizer: adam}
      searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 600}}
      min_checkpoint_period: {batches: 100}
      resources: {slots_per_trial: 2}
      max_restarts: 3
      reproducibility: {seed: 11}
      model: {name: fashion_cnn}
      """;

  /**
   * 10 s: a heartbeat leaves the SDK at most every 2 s ({@code KeelWorkerHost.HEARTBEAT_THROTTLE}),
   * and a rank's JVM stalling for the rest of a shorter timeout on a loaded machine would count as
   * a second restart.
   */
  private static final ExperimentRunOptions OPTIONS =
      ExperimentRunOptions.newBuilder().setHeartbeatTimeoutSeconds(10).build();

  private static FaultStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.withControlInProcess("gang");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  private static ChildWorker trainer(String name) throws Exception {
    return stack.child(name, "--roles", "TRAIN", "--slots", "1", "--train-threads", "1");
  }

  @Test
  void aKilledRankCostsOneGangRestartAndNothingElse() throws Exception {
    ChildWorker a = trainer("rank-a");
    ChildWorker b = trainer("rank-b");
    String reference =
        stack.startExperiment(FaultStack.config(CONFIG.formatted("gang-reference")), OPTIONS);
    ExperimentResult straight = stack.result(reference, Duration.ofMinutes(4));
    TrialState uninterrupted = straight.getState().getTrials(0);
    assertEquals(TrialState.State.COMPLETED, uninterrupted.getState(), uninterrupted.toString());
    assertEquals(0, uninterrupted.getRestarts());
    assertEquals(2, uninterrupted.getSlots());
    List<String> identities =
        uninterrupted.getRanksList().stream().map(RankInfo::getWorkerIdentity).toList();
    assertEquals(2, identities.size(), uninterrupted.toString());
    assertNotEquals(identities.get(0), identities.get(1), "one rank per worker process");
    assertTrue(
        identities.stream().allMatch(i -> a.isIdentity(i) || b.isIdentity(i)),
        identities.toString());

    ExperimentConfig config = FaultStack.config(CONFIG.formatted("gang-killed"));
    String id = stack.startExperiment(config, OPTIONS);
    String trialWorkflow = id + "/trial-1";
    FaultStack.await(
        "rank 0's first checkpoint",
        Duration.ofMinutes(3),
        () -> checkpointed(trialWorkflow) >= 100);
    assertTrue(
        checkpointed(trialWorkflow) < 500 && stack.running(id),
        "the trial got too far before the kill; lengthen it");
    b.kill();
    ChildWorker c = trainer("rank-c");
    ExperimentResult result = stack.result(id, Duration.ofMinutes(4));
    TrialState trial = result.getState().getTrials(0);

    assertEquals(
        ExperimentState.State.COMPLETED,
        result.getState().getState(),
        result.getState().toString());
    assertEquals(TrialState.State.COMPLETED, trial.getState(), trial.toString());
    assertEquals(1, trial.getRestarts(), "one gang restart for one killed rank");
    assertEquals(600, trial.getCompletedLength().getBatches());
    assertTrue(
        trial.getRanksList().stream().anyMatch(r -> c.isIdentity(r.getWorkerIdentity())),
        "the restarted gang runs on the fresh worker: " + trial.getRanksList());
    String logs = a.logText() + c.logText();
    assertTrue(
        logs.contains("resuming from"), "the restarted gang resumed from a checkpoint:\n" + logs);

    assertArrayEquals(
        Files.readAllBytes(parameters(uninterrupted.getLatestCheckpoint().getUri())),
        Files.readAllBytes(parameters(trial.getLatestCheckpoint().getUri())),
        "final parameters after a killed rank differ from the uninterrupted gang's");
  }

  /** Batches of the newest checkpoint a pending rank has heartbeated. */
  private static long checkpointed(String trialWorkflow) {
    try {
      long best = 0;
      for (PendingActivityInfo a : stack.describe(trialWorkflow).getPendingActivitiesList()) {
        best =
            Math.max(
                best,
                FaultStack.progress(a).map(p -> p.getLastCheckpoint().getBatches()).orElse(0L));
      }
      return best;
    } catch (RuntimeException notStartedYet) {
      return 0;
    }
  }

  private static Path parameters(String checkpointUri) {
    return Path.of(URI.create(checkpointUri)).resolve("parameters.djl");
  }
}
