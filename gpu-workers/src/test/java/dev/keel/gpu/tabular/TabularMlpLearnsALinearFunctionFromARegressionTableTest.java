package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Regression end to end from a table as {@code source.task: regression} writes it (a float label,
 * {@code keel.task: regression}; the ETL's own test reads it from a CSV): the label is a linear
 * function of three of four features plus noise, and the real {@code Train} activity fits {@code
 * tabular_mlp} (one output, mean squared error by default) and reports the validation MAE, RMSE and
 * R², which must show it learnt the function, and no classification metric.
 */
class TabularMlpLearnsALinearFunctionFromARegressionTableTest {
  private static final int ROWS = 3000;
  private static final double NOISE = 0.1;

  @Test
  void theTrainedModelExplainsNearlyAllOfTheVariance() throws Exception {
    Path dir = TestDirs.create("regression-e2e");
    Random random = new Random(42);
    long[] ids = new long[ROWS];
    float[] values = new float[ROWS];
    String[] splits = new String[ROWS];
    float[][] features = new float[ROWS][];
    for (int i = 0; i < ROWS; i++) {
      float[] x = new float[4];
      for (int k = 0; k < 4; k++) {
        x[k] = random.nextFloat() * 2 - 1;
      }
      ids[i] = i;
      values[i] = (float) (3 * x[0] - 2 * x[1] + 0.5 * x[2] + 1 + NOISE * random.nextGaussian());
      splits[i] = i % 6 == 0 ? "test" : "train";
      features[i] = x;
    }
    String uri = dir.resolve("table").toUri().toString();
    long version =
        new DeltaTableWriter(
                uri,
                TableSchemas.VALUED_FEATURES,
                Map.of(
                    TableSchemas.FEATURE_NAMES_PROPERTY, "x0,x1,x2,x3",
                    TableSchemas.TASK_PROPERTY, "regression"))
            .newAppend()
            .add(
                Columns.of(ROWS)
                    .add("id", ids)
                    .add("label", values)
                    .add("split", splits)
                    .add("features", features))
            .commit();
    TableRef table = TableRef.newBuilder().setUri(uri).setVersion(version).build();

    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    TrainResult result;
    try {
      env.registerActivitiesImplementations(
          new TrainingActivitiesImpl(
              new DeltaDatasetReader(), ModelZoo.withBuiltIns(), Duration.ofSeconds(1)));
      TrainingActivities activities =
          env.newActivityStub(
              TrainingActivities.class,
              ActivityOptions.newBuilder()
                  .setStartToCloseTimeout(Duration.ofMinutes(5))
                  .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                  .build());
      result =
          activities.train(
              Requests.tabularMlp(table, dir.resolve("checkpoints"), 600)
                  .putHparams("lr", Requests.num(3e-3))
                  .build());
    } finally {
      env.close();
    }

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
