package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.testing.TestDirs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A TorchScript CNN with batch norm trains on the Fashion-MNIST images table, and a trial resumed
 * half-way ends with the same bytes as one trained straight. Its checkpoint's PARAMETERS file is
 * the whole module, so the running statistics (buffers, not parameters) are trained, kept and
 * restored with it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TorchScriptCnnWithBatchNormTrainsOnImagesAndResumesBitIdenticallyTest {
  private static final long TARGET = 60;
  private static final long HALF = 30;

  private Path root;
  private Path modelFile;
  private TrainingOutcome straight;

  @BeforeAll
  void trainStraight() throws IOException {
    root = TestDirs.create("torchscript-cnn");
    modelFile = PyTorchFixtures.cnn(root.resolve("models"), 1, 28, 10, 8, 1, true);
    straight = train(request(TARGET).setTrialId("straight").build());
  }

  @Test
  void theFilesBatchNormHasRunningStatisticsAsBuffers() throws IOException {
    String info = PyTorchFixtures.info(modelFile);
    assertTrue(info.contains("\"features.1.running_mean\": [8]"), info);
    assertTrue(info.contains("\"features.5.running_var\": [16]"), info);
    assertTrue(info.contains("\"head.weight\": [10, 16]"), info);
  }

  @Test
  void resumingAtHalfWayGivesTheSameParametersOptimizerStateAndEvaluation() throws Exception {
    TrainingOutcome first = train(request(HALF).setTrialId("resumed").build());
    TrainingOutcome resumed =
        train(request(TARGET).setTrialId("resumed").setStartFrom(first.checkpoint()).build());
    assertEquals(TARGET, resumed.batches());
    assertArrayEquals(
        bytes(straight, CheckpointFiles.PARAMETERS), bytes(resumed, CheckpointFiles.PARAMETERS));
    assertArrayEquals(
        bytes(straight, CheckpointFiles.OPTIMIZER), bytes(resumed, CheckpointFiles.OPTIMIZER));
    assertEquals(straight.validationMetrics(), resumed.validationMetrics());
    assertFalse(straight.validationMetrics().isEmpty());

    // the running statistics at half-way went into the checkpoint and on from there
    Map<String, float[]> half = state(first, "half.pt");
    Map<String, float[]> end = state(straight, "straight.pt");
    assertFalse(
        Arrays.equals(half.get("features.1.running_mean"), end.get("features.1.running_mean")),
        "the running mean did not move between batches " + HALF + " and " + TARGET);
  }

  @Test
  void trainingUpdatesTheRunningStatisticsTheCheckpointCarries() throws IOException {
    Map<String, float[]> file = PyTorchFixtures.state(modelFile);
    Map<String, float[]> trained = state(straight, "straight-stats.pt");
    for (String buffer :
        new String[] {
          "features.1.running_mean",
          "features.1.running_var",
          "features.5.running_mean",
          "features.5.running_var"
        }) {
      assertTrue(trained.containsKey(buffer), buffer + " in " + trained.keySet());
      assertEquals(file.get(buffer).length, trained.get(buffer).length, buffer);
      assertFalse(
          Arrays.equals(file.get(buffer), trained.get(buffer)),
          buffer + " kept the file's values: batch norm did not train in training mode");
    }
  }

  @Test
  void itLearns() {
    double accuracy = straight.validationMetrics().get("accuracy");
    assertTrue(accuracy > 0.3, "validation accuracy " + accuracy + " after " + TARGET + " batches");
  }

  private Map<String, float[]> state(TrainingOutcome o, String name) throws IOException {
    return PyTorchFixtures.state(
        TorchScriptCheckpoints.moduleFile(o.checkpoint(), root.resolve("modules").resolve(name)));
  }

  private TrainRequest.Builder request(long target) {
    return Requests.fashionCnn(root.resolve("checkpoints"), target)
        .setModel(ModelSpec.newBuilder().setTorchscript(modelFile.toString()))
        .putHparams("batch_size", Requests.num(32))
        .putHparams("lr", Requests.num(0.005));
  }

  private static TrainingOutcome train(TrainRequest r) throws IOException {
    return new Trainer(
            TrainingPlan.from(r, ModelZoo.withBuiltIns()),
            FashionMnist.train(),
            ProgressListener.NONE)
        .run();
  }

  private static byte[] bytes(TrainingOutcome outcome, String file) throws IOException {
    return Files.readAllBytes(Path.of(URI.create(outcome.checkpoint().getUri())).resolve(file));
  }
}
