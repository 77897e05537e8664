package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * {@code model.torchscript: s3://…} (embedded S3Proxy): the object is read with the workers' S3
 * settings, trains to the same bytes as the same file on disk, and its URI and SHA-256 are what the
 * checkpoint records; a missing object is named.
 */
@ExtendWith(S3ProxyExtension.class)
class ATorchScriptFileOnS3TrainsLikeTheSameFileOnDiskTest {

  @Test
  void theObjectTrainsToTheLocalFilesBytesAndAMissingOneIsNamed() throws Exception {
    Path root = TestDirs.create("torchscript-s3");
    TableRef table = FashionMnistFeatures.write(root.resolve("table"), 4, 800, 100);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    Path local = PyTorchFixtures.mlp(root.resolve("models"), 49, 10, 16, 4);
    String bucket = S3ProxyExtension.newBucket("models");
    String uri = "s3://" + bucket + "/team/mlp.pt";
    S3ProxyExtension.client()
        .putObject(b -> b.bucket(bucket).key("team/mlp.pt"), RequestBody.fromFile(local));

    TrainingOutcome fromDisk = train(root, table, train, local.toString(), "disk");
    TrainingOutcome fromS3 = train(root, table, train, uri, "s3");
    assertArrayEquals(parameters(fromDisk), parameters(fromS3));
    ModelSpec recorded = VerifiedCheckpoint.open(fromS3.checkpoint()).metadata().model();
    assertEquals(uri, recorded.getTorchscriptFile());
    assertEquals(
        VerifiedCheckpoint.open(fromDisk.checkpoint()).metadata().model().getTorchscriptSha256(),
        recorded.getTorchscriptSha256());

    String missing = "s3://" + bucket + "/team/nope.pt";
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class, () -> train(root, table, train, missing, "missing"));
    assertEquals("model.torchscript", e.field());
    assertTrue(e.getMessage().contains(missing + " does not exist"), e.getMessage());
  }

  private static TrainingOutcome train(
      Path root, TableRef table, LabeledExamples train, String model, String trial)
      throws Exception {
    TrainRequest r =
        Requests.tabularMlp(table, root.resolve("checkpoints"), 20)
            .setTrialId(trial)
            .setModel(ModelSpec.newBuilder().setTorchscript(model))
            .clearHparams()
            .putHparams("batch_size", Requests.num(32))
            .build();
    return new Trainer(TrainingPlan.from(r, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
        .run();
  }

  private static byte[] parameters(TrainingOutcome o) throws Exception {
    return Files.readAllBytes(
        Path.of(URI.create(o.checkpoint().getUri())).resolve(CheckpointFiles.PARAMETERS));
  }
}
