package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TrialState;
import dev.keel.service.pipeline.TorchScriptFixtureFiles;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Searchers do not care what the model is: each one that was not already run on a TorchScript file
 * elsewhere (grid: the PyTorch example's pipeline; single: the SIGKILL test) searches the learning
 * rate of the example's MLP variants on real images, and every completed trial's checkpoint carries
 * the file it trained from.
 */
class EverySearcherTrainsATorchScriptModelTest {
  private static final String CONFIG =
      """
      name: %1$s-torchscript
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}
        batch_size: 32
      searcher: {name: %1$s, metric: validation_accuracy, smaller_is_better: false, max_trials: 3, max_length: {batches: 40}, %2$s}
      reproducibility: {seed: 5}
      model: {torchscript: %3$s}
      """;

  private static FaultStack stack;
  private static Path model;
  private static String sha256;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.allInProcess("searchers-torchscript");
    model =
        TorchScriptFixtureFiles.cnn(
            Files.createTempDirectory("torchscript-searchers").resolve("cnn.pt"), 1, 28, 10, 4);
    sha256 =
        java.util.HexFormat.of()
            .formatHex(
                java.security.MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(model)));
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"random", "adaptive_asha", "hyperband", "pbt", "tpe"})
  void theSearchCompletesAndEachTrialTrainedTheFile(String searcher) throws Exception {
    String extra =
        switch (searcher) {
          case "adaptive_asha" -> "max_rungs: 2, divisor: 2";
          case "hyperband" -> "max_rungs: 2, divisor: 2";
          case "pbt" -> "population_size: 2, num_rounds: 2";
          case "tpe" -> "tpe_startup_trials: 2";
          default -> "max_concurrent_trials: 1";
        };
    String id =
        stack.startExperiment(
            FaultStack.config(CONFIG.formatted(searcher, extra, model)),
            ExperimentRunOptions.newBuilder().setHeartbeatTimeoutSeconds(30).build());
    ExperimentResult result = stack.result(id, Duration.ofMinutes(6));
    assertEquals(
        ExperimentState.State.COMPLETED,
        result.getState().getState(),
        result.getState().toString());
    int trained = 0;
    for (TrialState t : result.getState().getTrialsList()) {
      if (t.getState() != TrialState.State.COMPLETED || !t.hasLatestCheckpoint()) {
        continue;
      }
      CheckpointRef checkpoint = t.getLatestCheckpoint();
      ModelSpec pinned = VerifiedCheckpoint.open(checkpoint).metadata().model();
      assertEquals(model.toString(), pinned.getTorchscriptFile(), t.toString());
      // the trial records the file and its SHA-256 as the checkpoint does
      assertEquals(pinned.getTorchscriptFile(), t.getModel().getTorchscriptFile(), t.toString());
      assertEquals(sha256, t.getModel().getTorchscriptSha256(), t.toString());
      trained++;
    }
    assertTrue(trained >= 2, searcher + " completed " + trained + " trials: " + result.getState());
  }
}
