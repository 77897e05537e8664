package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.testing.MultilabelTable;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.testing.TrainActivity;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Multilabel end to end from a table as {@code source.task: multilabel} writes it ({@link
 * MultilabelTable}; the ETL's own test reads one from a CSV): the real {@code Train} activity fits
 * {@code tabular_mlp} with one output per label and binary cross-entropy by default, and reports
 * the mean ROC AUC and one per label, which must show each label was learnt, and no accuracy.
 */
class TabularMlpLearnsAMultilabelTableAndReportsRocAucPerLabelTest {
  private static final int ROWS = 3000;

  @Test
  void everyLabelIsRankedFarBetterThanChance() throws Exception {
    Path dir = TestDirs.create("multilabel-e2e");
    TableRef table = MultilabelTable.write(dir.resolve("table"), ROWS, 7);

    TrainResult result =
        TrainActivity.runOnce(
            Requests.tabularMlp(table, dir.resolve("checkpoints"), 600)
                .putHparams("lr", Requests.num(3e-3))
                .build());

    Map<String, Double> metrics = result.getValidationMetricsMap();
    for (String label : MultilabelTable.LABELS.split(",")) {
      double auc = metrics.get("validation_roc_auc." + label);
      // 2% of the targets are flipped, which caps a perfect model near 0.98
      assertTrue(auc > 0.9, label + ": ROC AUC " + auc + " in " + metrics);
    }
    double mean =
        (metrics.get("validation_roc_auc.up")
                + metrics.get("validation_roc_auc.diagonal")
                + metrics.get("validation_roc_auc.both"))
            / 3;
    assertEquals(mean, metrics.get("validation_roc_auc"), 1e-12, "the mean over the labels");
    assertTrue(metrics.get("validation_loss") < 0.3, "binary cross-entropy " + metrics);
    assertFalse(metrics.containsKey("validation_accuracy"), metrics.toString());

    Map<String, Value> hp =
        VerifiedCheckpoint.open(result.getCheckpoint()).metadata().hyperparameters();
    assertEquals("bce_with_logits", hp.get("loss").getStringValue(), "the task's loss");
    assertEquals(3, hp.get("classes").getNumberValue(), "one output per label");
  }
}
