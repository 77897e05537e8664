package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Determinism of {@code tabular_mlp} as for images: with dropout and standardization on, the same
 * seed, data version and thread count give the same bytes of parameters (standardization statistics
 * included) and optimizer state, straight or stopped at a checkpoint and resumed from it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TabularMlpResumedFromACheckpointIsBitIdenticalTest {
  private static final long TARGET = 200;
  private static final long HALF = 100;

  private Path root;
  private TableRef table;
  private LabeledExamples train;
  private TrainingOutcome straight;

  @BeforeAll
  void trainStraight() throws IOException {
    root = TestDirs.create("tabular-resume");
    table = FashionMnistFeatures.write(root.resolve("table"), 4, 3000, 10);
    train = new DeltaDatasetReader().readExamples(table, "train");
    straight = train(request(TARGET).setTrialId("straight").build());
  }

  private TrainRequest.Builder request(long target) {
    return Requests.tabularMlp(table, root.resolve("checkpoints"), target)
        .putHparams("dropout", Requests.num(0.3));
  }

  @Test
  void resumingAtHalfWayGivesTheSameBytesAsTrainingStraight() throws Exception {
    TrainingOutcome first = train(request(HALF).setTrialId("resumed").build());
    assertEquals(HALF, first.checkpoint().getBatches());
    TrainingOutcome resumed =
        train(request(TARGET).setTrialId("resumed").setStartFrom(first.checkpoint()).build());
    assertEquals(TARGET, resumed.batches());
    assertSameBytes(straight, resumed, CheckpointFiles.PARAMETERS);
    assertSameBytes(straight, resumed, CheckpointFiles.OPTIMIZER);
    assertEquals(straight.validationMetrics(), resumed.validationMetrics());
  }

  @Test
  void theSameSeedGivesTheSameBytesAndAnotherSeedDoesNot() throws Exception {
    TrainingOutcome again = train(request(TARGET).setTrialId("again").build());
    assertSameBytes(straight, again, CheckpointFiles.PARAMETERS);
    TrainingOutcome otherSeed = train(request(TARGET).setTrialId("other-seed").setSeed(8).build());
    assertFalse(
        Arrays.equals(
            bytes(straight, CheckpointFiles.PARAMETERS),
            bytes(otherSeed, CheckpointFiles.PARAMETERS)),
        "a different seed produced identical parameters: the comparisons above would prove nothing");
  }

  private TrainingOutcome train(TrainRequest r) throws IOException {
    return new Trainer(TrainingPlan.from(r, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
        .run();
  }

  private static void assertSameBytes(TrainingOutcome a, TrainingOutcome b, String file)
      throws IOException {
    assertArrayEquals(bytes(a, file), bytes(b, file), file + " differs");
  }

  private static byte[] bytes(TrainingOutcome outcome, String file) throws IOException {
    return Files.readAllBytes(Path.of(URI.create(outcome.checkpoint().getUri())).resolve(file));
  }
}
