package dev.keel.gpu.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.Batches;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.storage.S3Clients;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointMetadata;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.CheckpointWriter;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.S3CheckpointStorage;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.storage.testing.TestDirs;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Checkpoints in S3 (embedded S3Proxy on 127.0.0.1): round trip, partial and corrupt ones refused.
 */
@ExtendWith(S3ProxyExtension.class)
class S3CheckpointStorageTest {
  private String bucket;
  private CheckpointStorage storage;
  private Hyperparameters hp;
  private S3Client s3;

  @BeforeEach
  void setUp() {
    bucket = S3ProxyExtension.newBucket("ckpt");
    storage = CheckpointStorage.forRoot("s3://" + bucket + "/keel/checkpoints");
    hp =
        Hyperparameters.resolve(
            new FashionCnn(),
            Map.of(),
            Map.of("width", Requests.num(4), "hidden", Requests.num(16)));
    s3 = S3ProxyExtension.client();
  }

  private CheckpointRef write(CheckpointStorage target, TrainableModel model) throws IOException {
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
    return new CheckpointWriter(target)
        .write(md, ModelCheckpoints.snapshot(model.block(), model.optimizer()));
  }

  private static TrainableModel trained(Hyperparameters hp) {
    TrainableModel model = TrainableModel.initialize(new FashionCnn(), hp, 1);
    try (NDManager step = model.manager().newSubManager()) {
      int[] rows = Batches.range(0, 32);
      model.trainStep(
          Batches.inputs(step, FashionMnist.train(), rows),
          Batches.labels(step, FashionMnist.train(), rows));
    }
    return model;
  }

  private List<String> keys(CheckpointRef ref) {
    String prefix = ref.getUri().substring(("s3://" + bucket + "/").length());
    return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
        .map(o -> o.key().substring(prefix.length()))
        .sorted()
        .collect(Collectors.toList());
  }

  private String key(CheckpointRef ref, String file) {
    return ref.getUri().substring(("s3://" + bucket + "/").length()) + file;
  }

  @Test
  void roundTripsThroughS3() throws IOException {
    try (TrainableModel model = trained(hp)) {
      CheckpointRef ref = write(storage, model);
      assertEquals(
          "s3://" + bucket + "/keel/checkpoints/exp/t1/" + ref.getUuid() + "/", ref.getUri());
      assertEquals(
          List.of("MANIFEST", "metadata.json", "optimizer.bin", "parameters.djl"), keys(ref));
      long objectBytes =
          s3.listObjectsV2(b -> b.bucket(bucket).prefix(key(ref, ""))).contents().stream()
              .mapToLong(S3Object::size)
              .sum();
      assertEquals(objectBytes, ref.getSizeBytes());

      VerifiedCheckpoint ck = VerifiedCheckpoint.open(ref);
      assertEquals(2, ck.metadata().batches());
      assertEquals(1.5, ck.metadata().metrics().get("train_loss"));
      try (TrainableModel restored = TrainableModel.initialize(new FashionCnn(), hp, 99)) {
        restored.restore(ck, true);
        for (int i = 0; i < model.parameters().size(); i++) {
          assertArrayEquals(
              model.parameters().get(i).getValue().getArray().toFloatArray(),
              restored.parameters().get(i).getValue().getArray().toFloatArray());
        }
      }
      FileAlreadyExistsException dup =
          assertThrows(
              FileAlreadyExistsException.class,
              () -> {
                try (CheckpointStorage.StagedCheckpoint again =
                    storage.stage("exp", "t1", ref.getUuid())) {
                  Files.writeString(again.directory().resolve(CheckpointFiles.MANIFEST), "x");
                  again.commit();
                }
              });
      assertTrue(dup.getMessage().contains("unique"), dup.getMessage());
      assertEquals(
          2, VerifiedCheckpoint.open(ref).metadata().batches(), "the first commit is intact");
    }
  }

  @Test
  void checkpointWithoutManifestIsPartialEvenAfterAnEarlierGoodRead() throws IOException {
    try (TrainableModel model = trained(hp)) {
      CheckpointRef ref = write(storage, model);
      VerifiedCheckpoint.open(ref); // fills the local cache, MANIFEST included
      s3.deleteObject(b -> b.bucket(bucket).key(key(ref, CheckpointFiles.MANIFEST)));
      CorruptCheckpointException e =
          assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(ref));
      assertEquals(CheckpointFiles.MANIFEST, e.file());
      assertTrue(e.getMessage().contains("partial"), e.getMessage());
    }
  }

  @Test
  void flippedByteInS3IsRefusedNamingTheFile() throws IOException {
    try (TrainableModel model = trained(hp)) {
      CheckpointRef ref = write(storage, model);
      VerifiedCheckpoint.open(ref);
      String k = key(ref, CheckpointFiles.PARAMETERS);
      byte[] bytes = s3.getObjectAsBytes(b -> b.bucket(bucket).key(k)).asByteArray();
      bytes[bytes.length / 2] ^= 0x01;
      s3.putObject(b -> b.bucket(bucket).key(k), RequestBody.fromBytes(bytes));
      CorruptCheckpointException e =
          assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(ref));
      assertEquals(CheckpointFiles.PARAMETERS, e.file());
      assertTrue(e.getMessage().contains("parameters.djl: sha256"), e.getMessage());
    }
  }

  @Test
  void noCheckpointAtTheUriIsRefused() {
    String uri = "s3://" + bucket + "/keel/checkpoints/exp/t1/nothing-here/";
    CorruptCheckpointException e =
        assertThrows(CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, uri));
    assertTrue(e.getMessage().contains("no checkpoint at"), e.getMessage());
  }

  @Tag("s3-credentials") // moto checks no credentials: not run against it
  @Test
  void wrongCredentialsFailNonRetryablyWithOneLine() throws IOException {
    CheckpointStorage denied =
        new S3CheckpointStorage(
            "s3://" + bucket + "/keel/checkpoints",
            S3Clients.get(S3ProxyExtension.settings().withStaticCredentials("nobody", "wrong")),
            TestDirs.create("cache"));
    try (TrainableModel model = trained(hp)) {
      KeelFailure f = assertThrows(KeelFailure.class, () -> write(denied, model));
      assertFalse(f.retryable());
      assertEquals(FailureTypes.STORAGE_UNUSABLE, f.type());
      assertTrue(
          f.getMessage().startsWith("storage s3://" + bucket + "/keel/checkpoints/exp/t1/"),
          f.getMessage());
      assertFalse(f.getMessage().contains("\n"));
    }
    assertTrue(s3.listObjectsV2(b -> b.bucket(bucket)).contents().isEmpty(), "nothing was written");
  }
}
