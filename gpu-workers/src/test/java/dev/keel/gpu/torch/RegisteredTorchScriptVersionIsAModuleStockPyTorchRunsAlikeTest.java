package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.Batches;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointMetadata;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.registry.ModelRegistryTable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A registered TorchScript model is a TorchScript file again: {@code model.pt} in the version's
 * directory holds the trained weights (running statistics included), and stock PyTorch's {@code
 * torch.jit.load} gives the outputs Keel's inference gives on the same rows.
 */
class RegisteredTorchScriptVersionIsAModuleStockPyTorchRunsAlikeTest {
  private static final float TOLERANCE = 1e-5f;

  @Test
  void aTabularMlpGivesKeelsOutputsInStockPyTorch() throws Exception {
    Path root = TestDirs.create("registered-mlp");
    TableRef table = FashionMnistFeatures.write(root.resolve("table"), 4, 1500, 200);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    LabeledExamples test = new DeltaDatasetReader().readExamples(table, "test");
    Path file = PyTorchFixtures.mlp(root.resolve("models"), 49, 10, 32, 3);
    CheckpointRef trained =
        new Trainer(
                TrainingPlan.from(
                    Requests.tabularMlp(table, root.resolve("checkpoints"), 40)
                        .setModel(ModelSpec.newBuilder().setTorchscript(file.toString()))
                        .clearHparams()
                        .putHparams("batch_size", Requests.num(32))
                        .build(),
                    ModelZoo.withBuiltIns()),
                train,
                ProgressListener.NONE)
            .run()
            .checkpoint();
    assertSameOutputs(register(root, "mlp", trained, table), test, 200);
  }

  @Test
  void aCnnWithBatchNormGivesKeelsOutputsInStockPyTorch() throws Exception {
    Path root = TestDirs.create("registered-cnn");
    Path file = PyTorchFixtures.cnn(root.resolve("models"), 1, 28, 10, 4, 3, true);
    CheckpointRef trained =
        new Trainer(
                TrainingPlan.from(
                    Requests.fashionCnn(root.resolve("checkpoints"), 15)
                        .setModel(ModelSpec.newBuilder().setTorchscript(file.toString()))
                        .putHparams("batch_size", Requests.num(32))
                        .build(),
                    ModelZoo.withBuiltIns()),
                FashionMnist.train(),
                ProgressListener.NONE)
            .run()
            .checkpoint();
    assertSameOutputs(register(root, "cnn", trained, FashionMnist.TABLE), FashionMnist.test(), 64);
  }

  private static ModelVersion register(
      Path root, String name, CheckpointRef checkpoint, TableRef data) {
    return new ModelRegistryTable(StorageRoot.of(root.resolve("storage").toString()))
        .register(
            RegisterModelRequest.newBuilder()
                .setName(name)
                .setCheckpoint(checkpoint)
                .setData(data)
                .setRegisteredBy("test")
                .build());
  }

  private static void assertSameOutputs(ModelVersion version, LabeledExamples rows, int n)
      throws IOException {
    String uri = version.getCheckpoint().getUri();
    Path modelPt = Path.of(URI.create(uri)).resolve(CheckpointFiles.TORCHSCRIPT);
    assertTrue(Files.isRegularFile(modelPt), "no " + modelPt);
    VerifiedCheckpoint checkpoint = VerifiedCheckpoint.open(CheckpointStorage.forRoot(uri), uri);
    CheckpointMetadata md = checkpoint.metadata();
    KeelModel model = ModelZoo.withBuiltIns().resolve(md.model());
    Hyperparameters hp = Hyperparameters.resolve(model, Map.of(), md.hyperparameters());
    float[][] keel;
    long[] example;
    try (TrainableModel trained = TrainableModel.fromCheckpoint(model, hp, md.seed(), checkpoint);
        NDManager batch = trained.manager().newSubManager()) {
      NDArray inputs = Batches.inputs(batch, rows, Batches.range(0, n));
      example = inputs.getShape().slice(1).getShape();
      keel = rows(trained.logits(inputs));
    }
    float[][] inputs = flatRows(rows, n);
    float[][] pytorch = PyTorchFixtures.predict(modelPt, inputs, example);
    assertEquals(keel.length, pytorch.length);
    float worst = 0;
    for (int i = 0; i < keel.length; i++) {
      assertEquals(keel[i].length, pytorch[i].length);
      for (int j = 0; j < keel[i].length; j++) {
        worst = Math.max(worst, Math.abs(keel[i][j] - pytorch[i][j]));
      }
    }
    System.out.println(rows.describe() + ": max abs difference Keel vs PyTorch " + worst);
    assertTrue(worst <= TOLERANCE, "max abs difference " + worst + " > " + TOLERANCE);
  }

  private static float[][] rows(NDArray logits) {
    Shape s = logits.getShape();
    float[] flat = logits.toFloatArray();
    float[][] out = new float[(int) s.get(0)][(int) s.get(1)];
    for (int i = 0; i < out.length; i++) {
      System.arraycopy(flat, i * out[i].length, out[i], 0, out[i].length);
    }
    return out;
  }

  private static float[][] flatRows(LabeledExamples data, int n) {
    try (NDManager m = NDManager.newBaseManager()) {
      NDArray all = Batches.inputs(m, data, Batches.range(0, n));
      int width = (int) (all.size() / n);
      float[] flat = all.toFloatArray();
      float[][] out = new float[n][width];
      for (int i = 0; i < n; i++) {
        System.arraycopy(flat, i * width, out[i], 0, width);
      }
      return out;
    }
  }
}
