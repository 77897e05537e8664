package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.TrainableModel;
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
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code init: reinitialize}: a TorchScript file's weights are drawn afresh from the trial's seed,
 * as PyTorch's layers draw them: the same seed gives the same bytes, another seed other bytes, and
 * none of them are the file's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReinitializedTorchScriptWeightsComeFromTheSeedTest {
  private Path root;
  private TableRef table;
  private LabeledExamples train;
  private Path modelFile;

  @BeforeAll
  void setUp() throws IOException {
    root = TestDirs.create("torchscript-reinit");
    table = FashionMnistFeatures.write(root.resolve("table"), 4, 2000, 300);
    train = new DeltaDatasetReader().readExamples(table, "train");
    modelFile = PyTorchFixtures.mlp(root.resolve("models"), 49, 10, 32, 1);
  }

  @Test
  void theSameSeedTrainsTheSameFirstCheckpointAndAnotherSeedOrTheFilesWeightsAnother()
      throws IOException {
    byte[] seven = firstCheckpoint(ModelSpec.Init.reinitialize, 7, "seven");
    byte[] again = firstCheckpoint(ModelSpec.Init.reinitialize, 7, "seven-again");
    byte[] eight = firstCheckpoint(ModelSpec.Init.reinitialize, 8, "eight");
    byte[] fromFile = firstCheckpoint(ModelSpec.Init.file, 7, "file");
    assertArrayEquals(seven, again, "seed 7 twice");
    assertFalse(Arrays.equals(seven, eight), "seeds 7 and 8 gave the same parameters");
    assertFalse(Arrays.equals(seven, fromFile), "seed 7 gave the file's parameters");
  }

  @Test
  void freshWeightsAreDrawnPerSeedWithinPyTorchsBoundsAndNoneAreTheFiles() {
    Map<String, float[]> seven = initial(ModelSpec.Init.reinitialize, 7);
    Map<String, float[]> again = initial(ModelSpec.Init.reinitialize, 7);
    Map<String, float[]> eight = initial(ModelSpec.Init.reinitialize, 8);
    Map<String, float[]> file = initial(ModelSpec.Init.file, 7);
    assertEquals(file.keySet(), seven.keySet());
    for (String name : file.keySet()) {
      assertArrayEquals(seven.get(name), again.get(name), name + " with seed 7 twice");
      assertFalse(Arrays.equals(seven.get(name), eight.get(name)), name + ": seeds 7 and 8");
      assertFalse(Arrays.equals(seven.get(name), file.get(name)), name + ": seed 7 and the file");
    }
    // Linear(49 -> 32) and Linear(32 -> 10): weight and bias uniform in ±1/sqrt(fan_in)
    assertUniformWithin(seven.get("fc1.weight"), 1 / Math.sqrt(49), "fc1.weight");
    assertUniformWithin(seven.get("fc1.bias"), 1 / Math.sqrt(49), "fc1.bias");
    assertUniformWithin(seven.get("fc2.weight"), 1 / Math.sqrt(32), "fc2.weight");
    assertUniformWithin(seven.get("fc2.bias"), 1 / Math.sqrt(32), "fc2.bias");
  }

  /** Within the bound, and spread over it: not zeros, not one value, not a narrower draw. */
  private static void assertUniformWithin(float[] values, double bound, String name) {
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (float v : values) {
      assertTrue(Math.abs(v) <= bound, name + " has " + v + " outside ±" + bound);
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    assertTrue(
        min < -bound / 2 && max > bound / 2,
        name + " spans [" + min + ", " + max + "] of ±" + bound);
  }

  private Map<String, float[]> initial(ModelSpec.Init init, long seed) {
    KeelModel model = ModelZoo.withBuiltIns().resolve(spec(init));
    Hyperparameters hp = Hyperparameters.resolve(model, Map.of(), Map.of());
    try (TrainableModel m = TrainableModel.initialize(model, hp, seed)) {
      Map<String, float[]> out = new LinkedHashMap<>();
      for (Pair<String, Parameter> p : m.parameters()) {
        out.put(p.getKey(), p.getValue().getArray().toFloatArray());
      }
      return out;
    }
  }

  /** The PARAMETERS of a trial's first checkpoint, after one batch. */
  private byte[] firstCheckpoint(ModelSpec.Init init, long seed, String trial) throws IOException {
    TrainRequest r =
        Requests.tabularMlp(table, root.resolve("checkpoints"), 1)
            .setTrialId(trial)
            .setSeed(seed)
            .setModel(spec(init))
            .clearHparams()
            .putHparams("batch_size", Requests.num(32))
            .build();
    TrainingOutcome o =
        new Trainer(TrainingPlan.from(r, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
            .run();
    assertEquals(1, o.batches());
    return Files.readAllBytes(
        Path.of(URI.create(o.checkpoint().getUri())).resolve(CheckpointFiles.PARAMETERS));
  }

  private ModelSpec spec(ModelSpec.Init init) {
    return ModelSpec.newBuilder().setTorchscript(modelFile.toString()).setInit(init).build();
  }
}
