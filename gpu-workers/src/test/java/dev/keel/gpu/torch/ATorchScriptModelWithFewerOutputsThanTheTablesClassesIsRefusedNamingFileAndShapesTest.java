package dev.keel.gpu.torch;

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
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A TorchScript classifier must score every class of the table: one with 3 outputs on a table of 10
 * classes is refused before training, naming the file and the shapes it took and returned.
 */
class ATorchScriptModelWithFewerOutputsThanTheTablesClassesIsRefusedNamingFileAndShapesTest {
  @Test
  void threeOutputsForTenClassesIsRefused() throws Exception {
    Path root = TestDirs.create("torchscript-classes");
    TableRef table = FashionMnistFeatures.write(root.resolve("table"), 4, 500, 100);
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    Path threeClasses = PyTorchFixtures.mlp(root.resolve("models"), 49, 3, 16, 0);
    TrainRequest r =
        Requests.tabularMlp(table, root.resolve("checkpoints"), 10)
            .setModel(ModelSpec.newBuilder().setTorchscript(threeClasses.toString()))
            .clearHparams()
            .putHparams("batch_size", Requests.num(32))
            .build();
    TrainingPlan plan = TrainingPlan.from(r, ModelZoo.withBuiltIns());
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () -> new Trainer(plan, train, ProgressListener.NONE).run());
    assertEquals("data", e.field());
    String m = e.getMessage();
    assertTrue(m.contains(threeClasses + " returns shape (1, 3)"), m);
    assertTrue(m.contains("for a batch of shape (1, 49)"), m);
    assertTrue(m.contains("10 classes"), m);
    assertTrue(m.contains("K >= 10"), m);
  }
}
