package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.checkpoint.ModelCheckpoints;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code model.freeze}: parameters under a frozen prefix leave training with the file's bytes while
 * the others learn; a prefix that matches nothing, or one that freezes everything, is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FrozenPrefixesKeepTheirValuesAndUnknownPrefixesAreRefusedTest {
  private Path root;
  private TableRef table;
  private LabeledExamples train;
  private Path modelFile;

  @BeforeAll
  void setUp() throws IOException {
    root = TestDirs.create("torchscript-freeze");
    table = FashionMnistFeatures.write(root.resolve("table"), 4, 2000, 300);
    train = new DeltaDatasetReader().readExamples(table, "train");
    modelFile = PyTorchFixtures.mlp(root.resolve("models"), 49, 10, 32, 3);
  }

  @Test
  void theMlpHasTheParametersTheTestsFreeze() throws IOException {
    String info = PyTorchFixtures.info(modelFile);
    for (String p :
        List.of(
            "\"fc1.weight\": [32, 49]",
            "\"fc1.bias\": [32]",
            "\"fc2.weight\": [10, 32]",
            "\"fc2.bias\": [10]")) {
      assertTrue(info.contains(p), p + " in " + info);
    }
  }

  @Test
  void frozenParametersEndTrainingWithTheFilesBytesAndTheOthersChange() throws IOException {
    TrainingOutcome outcome =
        new Trainer(
                TrainingPlan.from(request(List.of("fc1.")).build(), ModelZoo.withBuiltIns()),
                train,
                ProgressListener.NONE)
            .run();
    Map<String, byte[]> file = fileParameters();
    assertEquals(
        List.of("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"), List.copyOf(file.keySet()));
    Map<String, byte[]> trained = checkpointParameters(outcome);
    assertEquals(file.keySet(), trained.keySet());
    assertArrayEquals(file.get("fc1.weight"), trained.get("fc1.weight"), "fc1.weight trained");
    assertArrayEquals(file.get("fc1.bias"), trained.get("fc1.bias"), "fc1.bias trained");
    assertFalse(
        Arrays.equals(file.get("fc2.weight"), trained.get("fc2.weight")),
        "fc2.weight did not train");
    assertFalse(
        Arrays.equals(file.get("fc2.bias"), trained.get("fc2.bias")), "fc2.bias did not train");

    // stock PyTorch reads the same from the checkpoint's module
    Map<String, float[]> torch =
        PyTorchFixtures.state(
            TorchScriptCheckpoints.moduleFile(outcome.checkpoint(), root.resolve("frozen.pt")));
    Map<String, float[]> original = PyTorchFixtures.state(modelFile);
    assertArrayEquals(original.get("fc1.weight"), torch.get("fc1.weight"));
    assertFalse(Arrays.equals(original.get("fc2.weight"), torch.get("fc2.weight")));
  }

  @Test
  void aPrefixThatMatchesNoParameterIsRefusedListingTheParameters() {
    InvalidFieldException e =
        assertThrows(InvalidFieldException.class, () -> plan(List.of("encoder.")));
    assertEquals("model.freeze[0]", e.field());
    String m = e.getMessage();
    assertTrue(m.contains("'encoder.' matches no parameter of " + modelFile), m);
    assertTrue(m.contains("fc1.weight, fc1.bias, fc2.weight, fc2.bias"), m);

    e = assertThrows(InvalidFieldException.class, () -> plan(List.of("fc1.", "fc3")));
    assertEquals("model.freeze[1]", e.field());
  }

  @Test
  void freezingEveryParameterIsRefusedAsNothingWouldTrain() {
    InvalidFieldException e = assertThrows(InvalidFieldException.class, () -> plan(List.of("fc")));
    assertEquals("model.freeze", e.field());
    assertTrue(e.getMessage().contains("nothing would train"), e.getMessage());
    assertTrue(e.getMessage().contains(modelFile.toString()), e.getMessage());
  }

  /** Plans, fits and trains one batch: a freeze is checked when the file's module is loaded. */
  private void plan(List<String> freeze) throws IOException {
    new Trainer(
            TrainingPlan.from(
                request(freeze).setTrialId("refused").setTargetBatches(1).build(),
                ModelZoo.withBuiltIns()),
            train,
            ProgressListener.NONE)
        .run();
  }

  private TrainRequest.Builder request(List<String> freeze) {
    return Requests.tabularMlp(table, root.resolve("checkpoints"), 20)
        .setTrialId("frozen")
        .setModel(ModelSpec.newBuilder().setTorchscript(modelFile.toString()).addAllFreeze(freeze))
        .clearHparams()
        .putHparams("batch_size", Requests.num(32))
        .putHparams("lr", Requests.num(0.01));
  }

  /** The file's own values, loaded as Keel loads them (no freeze, the file's weights). */
  private Map<String, byte[]> fileParameters() {
    KeelModel model =
        ModelZoo.withBuiltIns()
            .resolve(ModelSpec.newBuilder().setTorchscript(modelFile.toString()).build());
    Hyperparameters hp = Hyperparameters.resolve(model, Map.of(), Map.of());
    try (TrainableModel m = TrainableModel.initialize(model, hp, 0)) {
      return bytes(m.parameters());
    }
  }

  private static Map<String, byte[]> checkpointParameters(TrainingOutcome outcome)
      throws IOException {
    String uri = outcome.checkpoint().getUri();
    VerifiedCheckpoint checkpoint = VerifiedCheckpoint.open(CheckpointStorage.forRoot(uri), uri);
    try (NDManager manager = NDManager.newBaseManager()) {
      List<Pair<String, Parameter>> params = new ArrayList<>();
      ModelCheckpoints.loadModule(checkpoint, manager, List.of())
          .getParameters()
          .forEach(params::add);
      return bytes(params);
    }
  }

  private static Map<String, byte[]> bytes(List<Pair<String, Parameter>> params) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (Pair<String, Parameter> p : params) {
      out.put(p.getKey(), p.getValue().getArray().toByteArray());
    }
    return out;
  }
}
