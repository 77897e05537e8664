package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.TableRef;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.LinearRegressionTable;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * On a regression table a TorchScript model must return one value per row, {@code (1, 1)} for a
 * batch of one: such a module trains with the default squared error and learns the table's linear
 * function, and a module with several outputs is refused before training, naming the file and the
 * shapes.
 */
class ATorchScriptRegressionModelReturnsOneValuePerRowTest {

  private static TrainingPlan plan(TableRef table, Path root, Path module, long batches) {
    return TrainingPlan.from(
        Requests.torchScriptOnFeatures(table, root.resolve("checkpoints"), module, batches).build(),
        ModelZoo.withBuiltIns());
  }

  @Test
  void oneOutputTrainsAndLearnsTheFunction() throws Exception {
    Path root = TestDirs.create("torchscript-regression");
    TableRef table = LinearRegressionTable.write(root.resolve("table"), 2000, 1);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    Path module = PyTorchFixtures.mlp(root.resolve("models"), 4, 1, 32, 0);
    TrainingOutcome outcome =
        new Trainer(plan(table, root, module, 500), train, ProgressListener.NONE).run();
    double r2 = outcome.validationMetrics().get("validation_r2");
    assertTrue(r2 > 0.9, "validation R² " + r2 + " in " + outcome.validationMetrics());
  }

  @Test
  void threeOutputsAreRefused() throws Exception {
    Path root = TestDirs.create("torchscript-regression-3");
    TableRef table = LinearRegressionTable.write(root.resolve("table"), 300, 1);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    Path module = PyTorchFixtures.mlp(root.resolve("models"), 4, 3, 8, 0);
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () -> new Trainer(plan(table, root, module, 10), train, ProgressListener.NONE).run());
    assertEquals("data", e.field());
    assertTrue(
        e.getMessage().contains(module + " returns shape (1, 3) for a batch of shape (1, 4)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("a regression model must return (1, 1)"), e.getMessage());
  }
}
