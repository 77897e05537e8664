package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.TrialState;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.experiment.ExperimentTable;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import java.awt.image.BufferedImage;
import java.io.BufferedWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "Best" has one owner. On data every trial learns perfectly (two classes far apart, rows sorted by
 * class as many CSVs are), every validation of every trial ties at accuracy 1.0: the pipeline must
 * register a checkpoint that checkpoint GC kept, of the trial {@code describe} calls best, trained
 * longest. And a search whose every trial fails ends ERRORED with the trials' reason, which the
 * pipeline's failure names; submission refuses the same mismatch before anything runs.
 */
class TiedSearchRegistersTheKeptBestAndAFailedSearchNamesItsReasonTest {
  private static InProcessStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = InProcessStack.start("ties");
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  void allTrialsTiedTheRegisteredCheckpointIsKeptAndIsTheOneDescribeCallsBest() throws Exception {
    Path csv =
        separableSortedByClass(
            Files.createDirectories(stack.storage.resolve("incoming")).resolve("ties.csv"));
    String id = "ties-" + UUID.randomUUID();
    PipelineResult result =
        pipeline(id)
            .run(
                ExperimentConfigLoaders.pipelineLoader()
                    .fromYaml(
                        """
        name: ties
        source: {format: csv, uri: %s, label_column: label}
        target_table: ties
        experiment:
          hyperparameters:
            lr: {type: categorical, vals: [0.01, 0.02, 0.03]}
            batch_size: 16
            hidden_units: 16
          searcher: {name: grid, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 150}}
          min_validation_period: {batches: 50}
          reproducibility: {seed: 3}
          model: {name: tabular_mlp}
        """
                            .formatted(csv)));

    ExperimentState state =
        stack
            .workers
            .client()
            .newWorkflowStub(ExperimentWorkflow.class, ExperimentWorkflow.childId(id))
            .state();
    assertEquals(3, state.getTrialsCount());
    for (TrialState t : state.getTrialsList()) {
      assertEquals(3, t.getCheckpointsCount(), "validated at 50, 100 and 150 batches: " + t);
      for (CheckpointRef c : t.getCheckpointsList()) {
        assertEquals(
            1.0,
            c.getMetricsOrThrow(CheckpointMetrics.SEARCHER_METRIC),
            "every validation ties: " + t);
      }
    }
    assertEquals(
        "trial-" + state.getBestTrialId(),
        result.getModel().getTrialId(),
        "the registered trial is the one the experiment calls best");
    assertEquals(
        1,
        state.getBestTrialId(),
        "a tie goes to the longer-trained checkpoint, then to the lower trial");
    assertTrue(
        ExperimentTable.render(state).contains("best 1.0000 (trial 1)"),
        ExperimentTable.render(state));
    assertEquals(
        150, result.getCheckpoint().getBatches(), "the longer-trained of the tied checkpoints");
    Path registeredFrom = Path.of(URI.create(result.getModel().getSourceCheckpointUri()));
    assertTrue(
        Files.isRegularFile(registeredFrom.resolve("MANIFEST")),
        "checkpoint GC kept what was registered");
    assertEquals(
        result.getIngest().getRowsPerSplitOrThrow("test"),
        result.getInference().getRows(),
        "the test split was scored");
  }

  @Test
  void aModelThatFitsNoImageOfTheSourceIsRefusedAtSubmissionAndItsSearchEndsErroredWithTheReason()
      throws Exception {
    Path folder = tinyImageFolder(stack.storage.resolve("incoming/digits-8x8"));
    PipelineRequest request =
        ExperimentConfigLoaders.pipelineLoader()
            .fromYaml(
                """
        name: small-images
        source: {format: image_folder, uri: %s}
        target_table: small_images
        experiment:
          hyperparameters: {batch_size: 4, stages: 4}
          searcher: {name: random, metric: validation_accuracy, smaller_is_better: false, max_trials: 2,
                     max_length: {batches: 10}}
          model: {name: fashion_cnn}
        """
                    .formatted(folder));

    ConfigValidationException refused =
        assertThrows(
            ConfigValidationException.class,
            () -> PipelineLauncher.checkSource(request, "small-images.yaml"));
    assertEquals(
        List.of(
            "experiment.hyperparameters.stages: 4 pooling stages halve the 8x8 images of source "
                + folder
                + " (first image a/00.png) to nothing; at most 3"),
        refused.problems().stream().map(ConfigProblem::toString).toList());

    // as `temporal workflow start` would: no submission check, so the trials meet the mismatch
    String id = "small-images-" + UUID.randomUUID();
    WorkflowFailedException failed =
        assertThrows(WorkflowFailedException.class, () -> pipeline(id).run(request));
    String message = ((ApplicationFailure) failed.getCause()).getOriginalMessage();
    assertTrue(
        message.contains("ended ERRORED")
            && message.contains("4 pooling stages halve the 8x8 images of table ")
            && message.contains(" to nothing; at most 3"),
        message);
    ExperimentState state =
        stack
            .workers
            .client()
            .newWorkflowStub(ExperimentWorkflow.class, ExperimentWorkflow.childId(id))
            .state();
    assertEquals(ExperimentState.State.ERRORED, state.getState());
    assertTrue(state.getError().startsWith("every trial failed; trial 1: "), state.getError());
  }

  private static PipelineWorkflow pipeline(String id) {
    return stack
        .workers
        .client()
        .newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .build());
  }

  /**
   * 240 rows: label 0 with x in [-3, -2], then label 1 with x in [2, 3], and a noise column; split
   * by hash.
   */
  private static Path separableSortedByClass(Path file) throws Exception {
    Random random = new Random(11);
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("label,x,noise\n");
      for (int label = 0; label < 2; label++) {
        for (int i = 0; i < 120; i++) {
          double x = (label == 0 ? -3 : 2) + random.nextDouble();
          w.write(String.format(Locale.ROOT, "%d,%.4f,%.4f%n", label, x, random.nextDouble()));
        }
      }
    }
    return file;
  }

  /** Two classes of ten 8x8 grey images each: {@code a/00.png}, …, {@code b/09.png}. */
  private static Path tinyImageFolder(Path dir) throws Exception {
    Random random = new Random(5);
    for (String cls : List.of("a", "b")) {
      Files.createDirectories(dir.resolve(cls));
      for (int i = 0; i < 10; i++) {
        BufferedImage image = new BufferedImage(8, 8, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < 8; y++) {
          for (int x = 0; x < 8; x++) {
            int v = cls.equals("a") ? random.nextInt(64) : 192 + random.nextInt(64);
            image.getRaster().setSample(x, y, 0, v);
          }
        }
        ImageIO.write(
            image,
            "png",
            dir.resolve(cls).resolve(String.format(Locale.ROOT, "%02d.png", i)).toFile());
      }
    }
    return dir;
  }
}
