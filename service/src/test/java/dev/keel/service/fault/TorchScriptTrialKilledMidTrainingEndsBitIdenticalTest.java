package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrialState;
import dev.keel.service.pipeline.TorchScriptFixtureFiles;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions.Role;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A user's PyTorch model (the example's residual CNN, with batch norm) survives SIGKILL of its
 * training worker like a built-in one: a fresh worker resumes the trial from the last checkpoint
 * and the final module (weights and running statistics) is byte for byte the one an uninterrupted
 * run writes.
 */
class TorchScriptTrialKilledMidTrainingEndsBitIdenticalTest {
  private static final long SEED = 20261127L;
  private static final long LENGTH = 120;
  private static final long CHECKPOINT_EVERY = 30;

  private static final String CONFIG =
      """
      name: %s
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 32, optimizer: adam}
      searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: %d}}
      min_checkpoint_period: {batches: %d}
      max_restarts: 5
      reproducibility: {seed: %d}
      model: {torchscript: %s}
      """;

  private static FaultStack stack;
  private static Path model;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.withControlInProcess("killed-torchscript");
    Path dir = Files.createTempDirectory("torchscript-models");
    TorchScriptFixtureFiles.exampleModels(dir);
    model = dir.resolve("cnn-w8.pt");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aFreshWorkerResumesTheTrialAndTheFinalModuleIsByteForByteTheUninterruptedOne()
      throws Exception {
    FaultStack.ChildWorker first =
        stack.child("trainer-0", "--roles", "TRAIN", "--slots", "1", "--train-threads", "1");
    String id =
        stack.startExperiment(
            config("killed"),
            ExperimentRunOptions.newBuilder().setHeartbeatTimeoutSeconds(10).build());
    FaultStack.await(
        "a checkpoint past batch " + CHECKPOINT_EVERY,
        Duration.ofMinutes(3),
        () ->
            progress(id)
                .map(
                    p ->
                        p.getLastCheckpoint().getBatches() >= CHECKPOINT_EVERY
                            && p.getBatches() > CHECKPOINT_EVERY + 5)
                .orElse(false));
    long killedAt = progress(id).orElseThrow().getBatches();
    first.kill();
    stack.child("trainer-1", "--roles", "TRAIN", "--slots", "1", "--train-threads", "1");
    ExperimentResult result = stack.result(id, Duration.ofMinutes(4));

    assertEquals(
        ExperimentState.State.COMPLETED,
        result.getState().getState(),
        result.getState().toString());
    TrialState trial = result.getState().getTrials(0);
    assertEquals(LENGTH, trial.getCompletedLength().getBatches());
    assertTrue(killedAt < LENGTH, "killed at batch " + killedAt);
    byte[] killed = Files.readAllBytes(parameters(trial.getLatestCheckpoint().getUri()));
    byte[] reference = Files.readAllBytes(parameters(uninterrupted()));
    assertArrayEquals(reference, killed, "module after a kill at batch " + killedAt);
  }

  private static ExperimentConfig config(String name) {
    return FaultStack.config(CONFIG.formatted(name, LENGTH, CHECKPOINT_EVERY, SEED, model));
  }

  /** The same trial trained by a worker in this JVM (1 thread, like the killed ones). */
  private static String uninterrupted() throws Exception {
    KeelWorkerHost trainer = stack.inProcess(Set.of(Role.TRAIN), 1);
    try {
      String id =
          stack.startExperiment(
              config("reference"),
              ExperimentRunOptions.newBuilder().setHeartbeatTimeoutSeconds(30).build());
      ExperimentResult result = stack.result(id, Duration.ofMinutes(3));
      assertEquals(0, result.getState().getTrials(0).getRestarts());
      return result.getState().getTrials(0).getLatestCheckpoint().getUri();
    } finally {
      stack.stop(trainer);
    }
  }

  private static Optional<TrainProgress> progress(String experimentId) {
    List<PendingActivityInfo> pending;
    try {
      pending = stack.describe(experimentId + "/trial-1").getPendingActivitiesList();
    } catch (StatusRuntimeException notYetStarted) {
      return Optional.empty();
    }
    return pending.stream()
        .filter(a -> a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED)
        .map(FaultStack::progress)
        .flatMap(Optional::stream)
        .findFirst();
  }

  private static Path parameters(String checkpointUri) {
    return Path.of(URI.create(checkpointUri)).resolve("parameters.djl");
  }
}
