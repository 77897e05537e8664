package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A model written in PyTorch and exported with {@code torch.jit.script} trains in Keel's loop like
 * a built-in one: it learns, the same seed gives the same bytes straight or resumed from a
 * checkpoint, its checkpoints carry the file's SHA-256 and refuse a changed file, and a checkpoint
 * scores rows without the original file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TorchScriptModelTrainsAndResumesBitIdenticallyTest {
  private static final long TARGET = 160;
  private static final long HALF = 80;

  private Path root;
  private Path modelFile;
  private TableRef table;
  private LabeledExamples train;
  private TrainingOutcome straight;

  @BeforeAll
  void trainStraight() throws IOException {
    root = TestDirs.create("torchscript-train");
    table = FashionMnistFeatures.write(root.resolve("table"), 4, 3000, 500);
    train = new DeltaDatasetReader().readExamples(table, "train");
    modelFile = PyTorchFixtures.mlp(root.resolve("models"), 49, 10, 32, 1);
    straight = train(request(TARGET).setTrialId("straight").build());
  }

  private TrainRequest.Builder request(long target) {
    return Requests.tabularMlp(table, root.resolve("checkpoints"), target)
        .setModel(ModelSpec.newBuilder().setTorchscript(modelFile.toString()))
        .clearHparams()
        .putHparams("batch_size", Requests.num(32))
        .putHparams("lr", Requests.num(0.005));
  }

  @Test
  void itLearnsFromTheFilesOwnWeights() {
    double accuracy = straight.validationMetrics().get("accuracy");
    assertTrue(accuracy > 0.5, "validation accuracy " + accuracy + " after " + TARGET + " batches");
  }

  @Test
  void resumingAtHalfWayGivesTheSameBytesAsTrainingStraight() throws Exception {
    TrainingOutcome first = train(request(HALF).setTrialId("resumed").build());
    TrainingOutcome resumed =
        train(request(TARGET).setTrialId("resumed").setStartFrom(first.checkpoint()).build());
    assertArrayEquals(
        bytes(straight, CheckpointFiles.PARAMETERS), bytes(resumed, CheckpointFiles.PARAMETERS));
    assertArrayEquals(
        bytes(straight, CheckpointFiles.OPTIMIZER), bytes(resumed, CheckpointFiles.OPTIMIZER));
    assertEquals(straight.validationMetrics(), resumed.validationMetrics());

    TrainingOutcome otherSeed = train(request(TARGET).setTrialId("other-seed").setSeed(8).build());
    assertFalse(
        Arrays.equals(
            bytes(straight, CheckpointFiles.PARAMETERS),
            bytes(otherSeed, CheckpointFiles.PARAMETERS)),
        "another seed (another data order) gave the same parameters: the comparison proves nothing");
  }

  @Test
  void theCheckpointRecordsTheFileAndItsSha256() throws Exception {
    ModelSpec recorded = checkpoint(straight).metadata().model();
    assertEquals(modelFile.toString(), recorded.getTorchscriptFile());
    assertEquals(sha256(Files.readAllBytes(modelFile)), recorded.getTorchscriptSha256());
  }

  @Test
  void aFileChangedAfterTheCheckpointIsRefusedOnResumeNamingBothHashes() throws Exception {
    Path changing = PyTorchFixtures.mlp(root.resolve("changing"), 49, 10, 32, 1);
    TrainRequest.Builder r =
        request(HALF)
            .setTrialId("changed")
            .setModel(ModelSpec.newBuilder().setTorchscript(changing.toString()));
    TrainingOutcome first = train(r.build());
    String before = sha256(Files.readAllBytes(changing));
    Path other = PyTorchFixtures.mlp(root.resolve("other"), 49, 10, 32, 2);
    Files.copy(other, changing, StandardCopyOption.REPLACE_EXISTING); // same path, other weights
    String after = sha256(Files.readAllBytes(changing));
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () -> train(r.setTargetBatches(TARGET).setStartFrom(first.checkpoint()).build()));
    assertEquals("model.torchscript", e.field());
    assertTrue(e.getMessage().contains(before) && e.getMessage().contains(after), e.getMessage());
  }

  @Test
  void aCheckpointScoresRowsWithoutTheOriginalFile() throws Exception {
    Path copy = PyTorchFixtures.mlp(root.resolve("deleted"), 49, 10, 32, 1);
    TrainingOutcome trained =
        train(
            request(HALF)
                .setTrialId("deleted")
                .setModel(ModelSpec.newBuilder().setTorchscript(copy.toString()))
                .build());
    Files.delete(copy);
    LabeledExamples test = new DeltaDatasetReader().readExamples(table, "test");
    try (CheckpointPredictor predictor = CheckpointPredictor.open(trained.checkpoint())) {
      Predictions p = predictor.predict(test);
      assertEquals(test.size(), p.size());
      assertTrue(p.accuracy(test.labels()) > 0.4, "test accuracy " + p.accuracy(test.labels()));
    }
  }

  private TrainingOutcome train(TrainRequest r) throws IOException {
    return new Trainer(TrainingPlan.from(r, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
        .run();
  }

  private static VerifiedCheckpoint checkpoint(TrainingOutcome o) throws IOException {
    String uri = o.checkpoint().getUri();
    return VerifiedCheckpoint.open(CheckpointStorage.forRoot(uri), uri);
  }

  private static byte[] bytes(TrainingOutcome outcome, String file) throws IOException {
    return Files.readAllBytes(Path.of(URI.create(outcome.checkpoint().getUri())).resolve(file));
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
