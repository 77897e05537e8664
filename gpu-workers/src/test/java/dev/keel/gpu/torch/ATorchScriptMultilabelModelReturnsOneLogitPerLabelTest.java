package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.TableRef;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.MultilabelTable;
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
 * On a multilabel table a TorchScript model returns one logit per label, {@code (1, L)} for a batch
 * of one: such a module trains with binary cross-entropy by default and ranks every label well, and
 * a module with another number of outputs is refused before training, naming the file and the
 * shapes.
 */
class ATorchScriptMultilabelModelReturnsOneLogitPerLabelTest {

  private static TrainingPlan plan(TableRef table, Path root, Path module, long batches) {
    return TrainingPlan.from(
        Requests.torchScriptOnFeatures(table, root.resolve("checkpoints"), module, batches).build(),
        ModelZoo.withBuiltIns());
  }

  @Test
  void oneLogitPerLabelTrainsAndRanksEveryLabel() throws Exception {
    Path root = TestDirs.create("torchscript-multilabel");
    TableRef table = MultilabelTable.write(root.resolve("table"), 2000, 3);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    Path module = PyTorchFixtures.mlp(root.resolve("models"), 4, 3, 32, 0);
    TrainingOutcome outcome =
        new Trainer(plan(table, root, module, 500), train, ProgressListener.NONE).run();
    for (String label : MultilabelTable.LABELS.split(",")) {
      double auc = outcome.validationMetrics().get("validation_roc_auc." + label);
      assertTrue(auc > 0.85, label + ": ROC AUC " + auc + " in " + outcome.validationMetrics());
    }
  }

  @Test
  void anotherNumberOfOutputsIsRefused() throws Exception {
    Path root = TestDirs.create("torchscript-multilabel-2");
    TableRef table = MultilabelTable.write(root.resolve("table"), 300, 3);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    Path module = PyTorchFixtures.mlp(root.resolve("models"), 4, 2, 8, 0);
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () -> new Trainer(plan(table, root, module, 10), train, ProgressListener.NONE).run());
    assertEquals("data", e.field());
    assertTrue(
        e.getMessage().contains(module + " returns shape (1, 2) for a batch of shape (1, 4)"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("a multilabel model must return (1, 3), one logit per label"),
        e.getMessage());
  }
}
