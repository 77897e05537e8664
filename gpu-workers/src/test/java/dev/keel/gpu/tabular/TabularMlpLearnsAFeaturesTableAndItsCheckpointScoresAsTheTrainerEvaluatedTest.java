package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.model.Standardization;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.Metrics;
import dev.keel.gpu.train.TrainValidationSplit;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * End to end on a real labeled-features Delta table (Fashion-MNIST pooled to 49 features): the real
 * {@code Train} activity trains {@code tabular_mlp}, which must learn far above chance (10
 * classes), and the checkpoint alone, through {@link CheckpointPredictor}, must score the held-out
 * rows exactly as the trainer's own evaluation did, with the standardization learned from the
 * training rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TabularMlpLearnsAFeaturesTableAndItsCheckpointScoresAsTheTrainerEvaluatedTest {
  private static final int TRAIN_ROWS = 6000;
  private static final int TEST_ROWS = 1000;

  private TestActivityEnvironment env;
  private TableRef table;
  private TrainResult result;
  private final DeltaDatasetReader reader = new DeltaDatasetReader();

  @BeforeAll
  void trainThroughTheActivity() throws Exception {
    Path dir = TestDirs.create("tabular-e2e");
    table = FashionMnistFeatures.write(dir.resolve("table"), 4, TRAIN_ROWS, TEST_ROWS);
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new TrainingActivitiesImpl(reader, ModelZoo.withBuiltIns(), Duration.ofSeconds(1)));
    TrainingActivities activities =
        env.newActivityStub(
            TrainingActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(5))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());
    result =
        activities.train(
            Requests.tabularMlp(table, dir.resolve("checkpoints"), 400)
                .setCheckpointEveryBatches(100)
                .build());
  }

  @AfterAll
  void closeEnvironment() {
    env.close();
  }

  @Test
  void learnsFarAboveChanceOnTheTestSplit() throws Exception {
    assertEquals(400, result.getBatches());
    LabeledExamples test = reader.readExamples(table, "test");
    assertEquals(TEST_ROWS, test.size());
    try (CheckpointPredictor predictor = CheckpointPredictor.open(result.getCheckpoint())) {
      double accuracy = predictor.predict(test).accuracy(test.labels());
      assertTrue(accuracy > 0.7, "test accuracy of tabular_mlp on 49 pooled features: " + accuracy);
    }
  }

  @Test
  void theCheckpointScoresTheValidationRowsExactlyAsTheTrainerEvaluatedThem() throws Exception {
    TrainValidationSplit split =
        TrainValidationSplit.of(
            reader.readExamples(table, "train"), ConfigDefaults.VALIDATION_FRACTION);
    double trainerAccuracy = result.getValidationMetricsMap().get(Metrics.VALIDATION_ACCURACY);
    Predictions predictions;
    try (CheckpointPredictor predictor = CheckpointPredictor.open(result.getCheckpoint())) {
      predictions = predictor.predict(split.validation(), 333);
      Map<String, Value> hp = predictor.metadata().hyperparameters();
      assertEquals(
          49,
          hp.get("features").getNumberValue(),
          "the checkpoint records the table's feature count");
      assertEquals(
          10, hp.get("classes").getNumberValue(), "the checkpoint records the table's class count");
    }
    assertEquals(trainerAccuracy, predictions.accuracy(split.validation().labels()), 0.0);
    assertTrue(trainerAccuracy > 0.7, "validation accuracy " + trainerAccuracy);
  }

  @Test
  void standardizationStatisticsComeFromTheTrainingRowsOnly() throws Exception {
    LabeledFeatures all = (LabeledFeatures) reader.readExamples(table, "train");
    TrainValidationSplit split = TrainValidationSplit.of(all, ConfigDefaults.VALIDATION_FRACTION);
    double[] trainingMean = columnMeans(split.train());
    double[] allMean = columnMeans(all);

    VerifiedCheckpoint checkpoint = VerifiedCheckpoint.open(result.getCheckpoint());
    KeelModel mlp = ModelZoo.withBuiltIns().resolve(checkpoint.metadata().model());
    Hyperparameters hp =
        Hyperparameters.resolve(mlp, Map.of(), checkpoint.metadata().hyperparameters());
    float[] savedMean;
    float[] savedStd;
    try (TrainableModel model = TrainableModel.initialize(mlp, hp, 0)) {
      Standardization standardization =
          (Standardization) model.block().getChildren().get(0).getValue();
      assertEquals(0f, standardization.statistics()[0][0], "before loading, the block's mean is 0");
      model.restore(checkpoint, false);
      savedMean = standardization.statistics()[0];
      savedStd = standardization.statistics()[1];
    }
    boolean differsFromAllRows = false;
    for (int k = 0; k < 49; k++) {
      assertEquals(
          trainingMean[k],
          savedMean[k],
          1e-3 * Math.max(1, Math.abs(trainingMean[k])),
          "mean of feature " + k);
      assertTrue(savedStd[k] > 0, "std of feature " + k);
      differsFromAllRows |= Math.abs(allMean[k] - savedMean[k]) > 1e-2;
    }
    assertTrue(
        differsFromAllRows, "the statistics equal those of all rows, validation rows included");
  }

  private static double[] columnMeans(LabeledExamples data) {
    LabeledFeatures f = (LabeledFeatures) data;
    double[] mean = new double[f.width()];
    for (int i = 0; i < f.size(); i++) {
      for (int k = 0; k < f.width(); k++) {
        mean[k] += f.features()[i * f.width() + k];
      }
    }
    for (int k = 0; k < mean.length; k++) {
      mean[k] /= f.size();
    }
    return mean;
  }
}
