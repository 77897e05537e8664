package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.Splits;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.TintedFashionMnist;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.InputNormalization;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.testing.Requests;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The built-in CNN on 32×32 RGB images (tinted Fashion-MNIST) that ETL normalised, trained with
 * flips and padded crops: it learns the table's shape and statistics into its hyperparameters,
 * scores through those whatever the scored rows say, and resumes bit-identically.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FashionCnnLearnsANormalisedColourTableAndScoresWithItsOwnStatisticsTest {
  private static final long TARGET = 160;

  private Path root;
  private TableRef table;
  private LabeledImages train;
  private LabeledImages test;
  private TrainingOutcome straight;

  @BeforeAll
  void ingestAndTrain() throws IOException {
    root = TestDirs.create("colour-cnn");
    Path folder = root.resolve("tinted");
    TintedFashionMnist.write(
        Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR), folder, 32, 150);
    table =
        new IngestActivitiesImpl()
            .ingest(
                IngestRequest.newBuilder()
                    .setSource(
                        DataSource.newBuilder()
                            .setFormat(DataSource.Format.image_folder)
                            .setUri(folder.toString())
                            .setImageMode(DataSource.ImageMode.rgb)
                            .setNormalize(true))
                    .setTableUri(root.resolve("table").toString())
                    .build())
            .getTable();
    train = (LabeledImages) new DeltaDatasetReader().readExamples(table, Splits.TRAIN);
    test = (LabeledImages) new DeltaDatasetReader().readExamples(table, Splits.TEST);
    straight = train(request(TARGET).setTrialId("straight").build());
  }

  private TrainRequest.Builder request(long target) {
    return Requests.fashionCnn(root.resolve("checkpoints"), target)
        .setData(table)
        .putHparams("width", Requests.num(8))
        .putHparams("hidden", Requests.num(32))
        .putHparams("stages", Requests.num(3))
        .putHparams("augment", Requests.str("flip,crop"));
  }

  private TrainingOutcome train(TrainRequest r) throws IOException {
    return new Trainer(TrainingPlan.from(r, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
        .run();
  }

  @Test
  void theCheckpointRecordsTheTablesShapeAndStatistics() throws IOException {
    Map<String, com.google.protobuf.Value> hp =
        VerifiedCheckpoint.open(straight.checkpoint()).metadata().hyperparameters();
    assertEquals("3x32x32", hp.get(FashionCnn.INPUT_SHAPE).getStringValue());
    assertEquals(
        ImageNormalization.format(train.normalization().mean()),
        hp.get(InputNormalization.MEAN).getStringValue());
    assertEquals(
        ImageNormalization.format(train.normalization().std()),
        hp.get(InputNormalization.STD).getStringValue());
  }

  @Test
  void itLearnsAndScoresRowsThroughItsOwnStatisticsWhateverTheirTableSays() throws IOException {
    try (CheckpointPredictor predictor = CheckpointPredictor.open(straight.checkpoint())) {
      Predictions normalised = predictor.predict(test);
      int correct = 0;
      for (int i = 0; i < test.size(); i++) {
        correct += normalised.labels()[i] == test.labels()[i] ? 1 : 0;
      }
      double accuracy = correct / (double) test.size();
      assertTrue(accuracy > 0.6, "test accuracy " + accuracy + " (chance is 0.1)");
      // the same pixels from a table without statistics: the checkpoint's are applied
      Predictions raw = predictor.predict(test.withNormalization(ImageNormalization.NONE));
      assertArrayEquals(normalised.labels(), raw.labels());
      assertArrayEquals(normalised.scores(), raw.scores());
    }
  }

  @Test
  void resumingHalfWayThroughFlipsAndCropsGivesTheSameBytes() throws IOException {
    TrainingOutcome first = train(request(TARGET / 2).setTrialId("resumed").build());
    TrainingOutcome resumed =
        train(request(TARGET).setTrialId("resumed").setStartFrom(first.checkpoint()).build());
    for (String file : new String[] {CheckpointFiles.PARAMETERS, CheckpointFiles.OPTIMIZER}) {
      assertArrayEquals(bytes(straight, file), bytes(resumed, file), file);
    }
  }

  private static byte[] bytes(TrainingOutcome outcome, String file) throws IOException {
    return Files.readAllBytes(Path.of(URI.create(outcome.checkpoint().getUri())).resolve(file));
  }
}
