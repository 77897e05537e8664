package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.dataset.LabeledImages;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A CSV file of real data (Fashion-MNIST average-pooled to 7x7 = 49 features, with a split column)
 * goes through the whole pipeline: CSV ETL into a labeled-features table, tabular_mlp trained by a
 * child experiment, registered, and its test split scored by the partitioned Inference workflow.
 * Then that model is refused, naming both schemas, by pipelines that would use it on images or on
 * other columns.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TabularPipelineTrainsOnACsvAndScoresItsTestSplitTest {
  private static final int TRAIN_ROWS = 6000;
  private static final int TEST_ROWS = 1000;
  private static InProcessStack stack;
  private static KeelWorkerHost workers;
  private static Path storage;

  @BeforeAll
  static void startStack() throws Exception {
    stack = InProcessStack.start("tabular-e2e");
    workers = stack.workers;
    storage = stack.storage;
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  @Order(1)
  void aCsvTableTrainsTabularMlpAndEveryTestRowIsScored() throws Exception {
    Path csv =
        writeCsv(
            Files.createDirectories(storage.resolve("incoming")).resolve("fashion-pooled.csv"));
    PipelineResult result =
        workers
            .client()
            .newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("tabular-" + UUID.randomUUID())
                    .build())
            .run(
                ExperimentConfigLoaders.pipelineLoader()
                    .fromYaml(
                        """
            name: pooled-fashion
            source: {format: csv, uri: %s, label_column: label}
            target_table: pooled_fashion
            experiment:
              hyperparameters: {lr: 0.003, batch_size: 64, hidden_units: 64}
              searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 300}}
              reproducibility: {seed: 5}
              model: {name: tabular_mlp}
            """
                            .formatted(csv)));

    assertEquals(TRAIN_ROWS + TEST_ROWS, result.getIngest().getRows());
    assertEquals(TEST_ROWS, result.getIngest().getRowsPerSplitOrThrow("test"));
    assertEquals(300, result.getCheckpoint().getBatches());
    assertEquals("tabular_mlp", result.getModel().getConfig().getModel().getName());
    assertEquals(TEST_ROWS, result.getInference().getRows());
    assertTrue(
        result.getInference().getAccuracy() > 0.6,
        "accuracy " + result.getInference().getAccuracy() + " (chance 0.1)");
    assertEquals(
        49, result.getInference().getStatistics().getMeanCount(), "per-feature input statistics");
  }

  @Test
  @Order(2)
  void itsModelIsRefusedOnTablesOfAnotherSchemaBeforeAnyStageWrites() throws Exception {
    // before the ETL: a Fashion-MNIST source gives images, the model reads 49 features
    String images =
        failure(
            """
        name: images-with-a-tabular-model
        source: {format: fashion_mnist, uri: /usr/share/datasets/fashion-mnist}
        target_table: fashion_for_the_wrong_model
        reuse: {model: {name: pooled-fashion, version: 1}}
        """);
    assertEquals(
        "reuse.model pooled-fashion v1 was trained on 49 features [px_0_0, px_0_1, px_0_2, …, px_6_6] of 10 "
            + "classes and cannot use source /usr/share/datasets/fashion-mnist: a fashion_mnist source gives images",
        images);
    assertFalse(
        Files.exists(storage.resolve("tables/fashion_for_the_wrong_model")), "no table written");

    // an existing table of other feature columns, reused as it is
    Path other = Files.createDirectories(storage.resolve("incoming")).resolve("three-features.csv");
    Files.writeString(other, "label,split,a,b,c\n0,train,1,2,3\n1,test,4,5,6\n");
    new IngestActivitiesImpl(StorageRoot.of(storage.toString()))
        .ingest(
            IngestRequest.newBuilder()
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(DataSource.Format.csv)
                        .setUri(other.toString())
                        .setLabelColumn("label"))
                .setTableUri("three_features")
                .build());
    String features =
        failure(
            """
        name: other-columns
        reuse: {model: {name: pooled-fashion, version: 1}, table: {table: three_features}}
        inference: {predictions_table: other_columns_predictions}
        """);
    assertEquals(
        "reuse.model pooled-fashion v1 was trained on 49 features [px_0_0, px_0_1, px_0_2, …, px_6_6] of 10 "
            + "classes and cannot use table three_features v0: it holds 3 features [a, b, c] of 2 classes",
        features);
    assertFalse(
        Files.exists(storage.resolve("tables/other_columns_predictions")),
        "no predictions written");
  }

  /** The message of the pipeline's non-retryable failure. */
  private static String failure(String yaml) {
    WorkflowFailedException e =
        assertThrows(
            WorkflowFailedException.class,
            () ->
                workers
                    .client()
                    .newWorkflowStub(
                        PipelineWorkflow.class,
                        WorkflowOptions.newBuilder()
                            .setTaskQueue(TaskQueues.CONTROL)
                            .setWorkflowId("refused-" + UUID.randomUUID())
                            .build())
                    .run(ExperimentConfigLoaders.pipelineLoader().fromYaml(yaml)));
    ApplicationFailure cause = (ApplicationFailure) e.getCause();
    assertEquals(FailureTypes.INVALID_PIPELINE_REQUEST, cause.getType());
    return cause.getOriginalMessage();
  }

  /** label, split, px_0_0 … px_6_6: the 4x4-pooled brightness of each image. */
  static Path writeCsv(Path file) throws Exception {
    LabeledImages train = IdxFiles.read(Path.of("/usr/share/datasets/fashion-mnist"), "train");
    LabeledImages test = IdxFiles.read(Path.of("/usr/share/datasets/fashion-mnist"), "t10k");
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("label,split");
      for (int r = 0; r < 7; r++) {
        for (int c = 0; c < 7; c++) {
          w.write(",px_" + r + "_" + c);
        }
      }
      w.newLine();
      for (int i = 0; i < TRAIN_ROWS + TEST_ROWS; i++) {
        boolean isTrain = i < TRAIN_ROWS;
        LabeledImages from = isTrain ? train : test;
        int row = isTrain ? i : i - TRAIN_ROWS;
        w.write(from.labels()[row] + (isTrain ? ",train" : ",test"));
        for (int r = 0; r < 7; r++) {
          for (int c = 0; c < 7; c++) {
            int sum = 0;
            for (int y = 0; y < 4; y++) {
              for (int x = 0; x < 4; x++) {
                sum += from.pixels()[row * 784 + (r * 4 + y) * 28 + c * 4 + x] & 0xff;
              }
            }
            w.write(String.format(Locale.ROOT, ",%.4f", sum / 16.0));
          }
        }
        w.newLine();
      }
    }
    return file;
  }
}
