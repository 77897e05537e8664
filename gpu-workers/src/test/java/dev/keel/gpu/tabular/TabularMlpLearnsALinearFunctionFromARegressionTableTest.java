package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.testing.LinearRegressionTable;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.testing.TrainActivity;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression end to end from a table as {@code source.task: regression} writes it ({@link
 * LinearRegressionTable}; the ETL's own test reads one from a CSV), and the real {@code Train}
 * activity fits {@code tabular_mlp} (one output, mean squared error by default) and reports the
 * validation MAE, RMSE and R², which must show it learnt the function, and no classification
 * metric.
 */
class TabularMlpLearnsALinearFunctionFromARegressionTableTest {
  private static final int ROWS = 3000;

  @Test
  void theTrainedModelExplainsNearlyAllOfTheVariance() throws Exception {
    Path dir = TestDirs.create("regression-e2e");
    TableRef table = LinearRegressionTable.write(dir.resolve("table"), ROWS, 42);

    TrainResult result =
        TrainActivity.runOnce(
            Requests.tabularMlp(table, dir.resolve("checkpoints"), 600)
                .putHparams("lr", Requests.num(3e-3))
                .build());

    Map<String, Double> metrics = result.getValidationMetricsMap();
    double r2 = metrics.get("validation_r2");
    assertTrue(r2 > 0.9, "validation R² " + r2 + " in " + metrics);
    // the noise alone leaves an RMSE of 0.1; predicting the mean, about 2.1
    assertTrue(metrics.get("validation_rmse") < 0.6, metrics.toString());
    assertTrue(metrics.get("validation_mae") < metrics.get("validation_rmse") + 1e-9);
    assertEquals(
        metrics.get("validation_rmse") * metrics.get("validation_rmse"),
        metrics.get("validation_loss"),
        1e-3,
        "the loss is the mean squared error");
    assertFalse(metrics.containsKey("validation_accuracy"), metrics.toString());

    Map<String, Value> hp =
        VerifiedCheckpoint.open(result.getCheckpoint()).metadata().hyperparameters();
    assertEquals("mse", hp.get("loss").getStringValue(), "the fit names the task's loss");
    assertEquals(1, hp.get("classes").getNumberValue(), "one output, the value");
  }
}
