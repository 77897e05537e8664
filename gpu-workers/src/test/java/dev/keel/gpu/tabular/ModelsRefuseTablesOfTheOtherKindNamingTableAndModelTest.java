package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A model on the wrong kind of table fails at once, non-retryably, with one line naming the table
 * and the model: {@code fashion_cnn} on feature vectors, {@code tabular_mlp} on images, a feature
 * count other than the one configured, and a checkpoint scoring a table with another feature count.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModelsRefuseTablesOfTheOtherKindNamingTableAndModelTest {
  private Path root;
  private TableRef features49;
  private TableRef features16;
  private TestActivityEnvironment env;
  private TrainingActivities activities;
  private final DeltaDatasetReader delta = new DeltaDatasetReader();

  @BeforeAll
  void setUp() throws Exception {
    root = TestDirs.create("tabular-kinds");
    features49 = FashionMnistFeatures.write(root.resolve("pooled4"), 4, 1200, 200);
    features16 = FashionMnistFeatures.write(root.resolve("pooled7"), 7, 200, 200);
    // Fashion-MNIST's images table, or the Delta tables above
    DatasetReader reader =
        (table, split) ->
            table.equals(FashionMnist.TABLE)
                ? FashionMnist.reader().readExamples(table, split)
                : delta.readExamples(table, split);
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new TrainingActivitiesImpl(reader, ModelZoo.withBuiltIns(), Duration.ZERO));
    activities =
        env.newActivityStub(
            TrainingActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(5))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
                .build());
  }

  @AfterAll
  void tearDown() {
    env.close();
  }

  @Test
  void fashionCnnOnAFeaturesTable() {
    String message =
        refused(Requests.fashionCnn(root.resolve("ck"), 10).setData(features49).build());
    assertEquals(
        "data: table "
            + features49.getUri()
            + " v0 holds vectors of 49 features, but model fashion_cnn takes images",
        message);
  }

  @Test
  void tabularMlpOnAnImagesTable() {
    String message =
        refused(Requests.tabularMlp(FashionMnist.TABLE, root.resolve("ck"), 10).build());
    assertEquals(
        "data: table "
            + FashionMnist.TABLE.getUri()
            + " v0 holds 28x28 images, but model tabular_mlp"
            + " takes feature vectors (a labeled-features table); images need an image model such as fashion_cnn",
        message);
  }

  @Test
  void aConfiguredFeatureCountOtherThanTheTables() {
    String message =
        refused(
            Requests.tabularMlp(features16, root.resolve("ck"), 10)
                .putHparams("features", Requests.num(49))
                .build());
    assertEquals(
        "data: table "
            + features16.getUri()
            + " v0 holds vectors of 16 features, but model tabular_mlp"
            + " takes 49 features (hyperparameters.features)",
        message);
  }

  @Test
  void aCheckpointScoringATableWithAnotherFeatureCount() throws Exception {
    TrainResult trained =
        activities.train(
            Requests.tabularMlp(features49, root.resolve("ck"), 20)
                .setTrialId("trained-on-49")
                .build());
    LabeledExamples test16 = delta.readExamples(features16, "test");
    LabeledExamples test49 = delta.readExamples(features49, "test");
    try (CheckpointPredictor predictor = CheckpointPredictor.open(trained.getCheckpoint())) {
      assertEquals(test49.size(), predictor.predict(test49).size());
      String table = features16.getUri() + " v0";
      InvalidFieldException e =
          assertThrows(InvalidFieldException.class, () -> predictor.requireFits(table, test16));
      assertEquals(
          "data: table "
              + table
              + " holds vectors of 16 features, but model tabular_mlp takes 49 features"
              + " (hyperparameters.features) (checkpoint "
              + trained.getCheckpoint().getUri()
              + ")",
          e.getMessage());
      assertThrows(InvalidFieldException.class, () -> predictor.predict(test16));
      InvalidFieldException images =
          assertThrows(
              InvalidFieldException.class,
              () -> predictor.requireFits("fashion_mnist v0", FashionMnist.test()));
      assertTrue(
          images
              .getMessage()
              .startsWith("data: table fashion_mnist v0 holds 28x28 images, but model tabular_mlp"),
          images.getMessage());
    }
  }

  /**
   * The activity's failure, which must be non-retryable and {@value
   * FailureTypes#INVALID_TRAIN_REQUEST}.
   */
  private String refused(TrainRequest request) {
    ActivityFailure f = assertThrows(ActivityFailure.class, () -> activities.train(request));
    ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, f.getCause());
    assertTrue(cause.isNonRetryable(), cause.toString());
    assertEquals(FailureTypes.INVALID_TRAIN_REQUEST, cause.getType());
    return cause.getOriginalMessage();
  }
}
