package dev.keel.gpu.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.Batches;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointMetadata;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.CheckpointWriter;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CheckpointTest {
  private Path root;
  private CheckpointStorage storage;
  private Hyperparameters hp;

  @BeforeEach
  void setUp() throws IOException {
    root = TestDirs.create("ckpt");
    storage = CheckpointStorage.forRoot(root.toUri().toString());
    hp =
        Hyperparameters.resolve(
            new FashionCnn(),
            Map.of(),
            Map.of("width", Requests.num(4), "hidden", Requests.num(16)));
  }

  private CheckpointRef writeTrained() throws IOException {
    try (TrainableModel model = TrainableModel.initialize(new FashionCnn(), hp, 1)) {
      for (int b = 0; b < 2; b++) {
        try (NDManager step = model.manager().newSubManager()) {
          int[] rows = Batches.range(b * 32, b * 32 + 32);
          model.trainStep(
              Batches.inputs(step, FashionMnist.train(), rows),
              Batches.labels(step, FashionMnist.train(), rows));
        }
      }
      CheckpointMetadata md =
          new CheckpointMetadata(
              UUID.randomUUID().toString(),
              "exp",
              "t1",
              ModelSpec.newBuilder().setName("fashion_cnn").build(),
              hp.asProto(),
              1,
              2,
              32,
              60000,
              "test",
              FashionMnist.TABLE,
              1,
              Map.of("train_loss", 1.5),
              "now");
      return new CheckpointWriter(storage)
          .write(md, ModelCheckpoints.snapshot(model.block(), model.optimizer()));
    }
  }

  private static Path dir(CheckpointRef ref) {
    return Path.of(URI.create(ref.getUri()));
  }

  @Test
  void writesAtomicallyAndRoundTrips() throws IOException {
    CheckpointRef ref = writeTrained();
    Path dir = dir(ref);
    assertEquals(root.resolve("exp/t1/" + ref.getUuid()), dir);
    try (Stream<Path> trial = Files.list(dir.getParent())) {
      assertEquals(1, trial.count(), "staging directory left behind");
    }
    assertTrue(Files.readString(dir.resolve("MANIFEST")).contains(" parameters.djl\n"));
    VerifiedCheckpoint ck = VerifiedCheckpoint.open(ref);
    assertEquals(2, ck.metadata().batches());
    assertEquals(hp.asProto(), ck.metadata().hyperparameters());
    assertEquals(1.5, ck.metadata().metrics().get("train_loss"));

    try (TrainableModel a = TrainableModel.initialize(new FashionCnn(), hp, 99)) {
      a.restore(ck, true);
      assertEquals(2, a.optimizer().steps(a.parameters().get(0).getKey()));
      try (TrainableModel b = TrainableModel.initialize(new FashionCnn(), hp, 98)) {
        b.restore(ck, true);
        for (int i = 0; i < a.parameters().size(); i++) {
          assertArrayEquals(
              a.parameters().get(i).getValue().getArray().toFloatArray(),
              b.parameters().get(i).getValue().getArray().toFloatArray());
          assertEquals(
              a.parameters().get(i).getValue().requiresGradient(),
              b.parameters().get(i).getValue().getArray().hasGradient());
        }
      }
    }
  }

  @Test
  void flippedByteIsRefusedNamingTheFile() throws IOException {
    CheckpointRef ref = writeTrained();
    Path params = dir(ref).resolve(CheckpointFiles.PARAMETERS);
    byte[] bytes = Files.readAllBytes(params);
    bytes[bytes.length / 2] ^= 0x01;
    Files.write(params, bytes);
    CorruptCheckpointException e =
        assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(ref));
    assertEquals(CheckpointFiles.PARAMETERS, e.file());
    assertTrue(e.getMessage().contains("parameters.djl: sha256"), e.getMessage());
  }

  @Test
  void deletedFileIsRefused() throws IOException {
    CheckpointRef ref = writeTrained();
    Files.delete(dir(ref).resolve(CheckpointFiles.OPTIMIZER));
    CorruptCheckpointException e =
        assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(ref));
    assertEquals(CheckpointFiles.OPTIMIZER, e.file());
    assertTrue(
        e.getMessage().endsWith("optimizer.bin: listed in MANIFEST but missing"), e.getMessage());
  }

  @Test
  void checkpointWithoutManifestIsPartial() throws IOException {
    CheckpointRef ref = writeTrained();
    Files.delete(dir(ref).resolve(CheckpointFiles.MANIFEST));
    CorruptCheckpointException e =
        assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(ref));
    assertEquals(CheckpointFiles.MANIFEST, e.file());
    assertTrue(e.getMessage().contains("partial"), e.getMessage());
  }

  @Test
  void truncatedFileAndTruncatedManifestAreRefused() throws IOException {
    CheckpointRef ref = writeTrained();
    Path md = dir(ref).resolve(CheckpointFiles.METADATA);
    Files.write(md, Arrays.copyOf(Files.readAllBytes(md), 10));
    assertEquals(
        CheckpointFiles.METADATA,
        assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(ref)).file());

    CheckpointRef other = writeTrained();
    Path manifest = dir(other).resolve(CheckpointFiles.MANIFEST);
    String text = Files.readString(manifest);
    Files.writeString(manifest, text.substring(0, text.indexOf("END")));
    CorruptCheckpointException e =
        assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(other));
    assertTrue(e.getMessage().contains("MANIFEST: truncated"), e.getMessage());
  }

  @Test
  void uncommittedStagingIsDeletedAndInvisible() throws IOException {
    Path staged;
    try (CheckpointStorage.StagedCheckpoint s = storage.stage("exp", "t2", "u1")) {
      staged = s.directory();
      Files.writeString(staged.resolve("parameters.djl"), "half written");
    }
    assertFalse(Files.exists(staged));
    String uri = root.resolve("exp/t2/u1").toUri().toString();
    assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, uri));
  }

  @Test
  void parametersOfAnotherArchitectureAreRefused() throws IOException {
    CheckpointRef ref = writeTrained();
    Hyperparameters wider =
        Hyperparameters.resolve(
            new FashionCnn(),
            Map.of(),
            Map.of("width", Requests.num(8), "hidden", Requests.num(16)));
    try (TrainableModel m = TrainableModel.initialize(new FashionCnn(), wider, 1)) {
      CorruptCheckpointException e =
          assertThrows(
              CorruptCheckpointException.class,
              () -> m.restore(VerifiedCheckpoint.open(ref), true));
      assertEquals(CheckpointFiles.PARAMETERS, e.file());
    }
  }
}
