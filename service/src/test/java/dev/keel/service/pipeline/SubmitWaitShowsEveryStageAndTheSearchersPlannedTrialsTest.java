package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.TrainProgress;
import dev.keel.service.cli.KeelRun;
import io.temporal.api.common.v1.ActivityType;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code keel submit --wait} follows a real pipeline (a CSV through ETL, a 3-trial random search
 * trained one trial at a time, registration, scoring, champion/challenger) on a {@code keel
 * dev}-like stack: the search's progress counts trials of the 3 its searcher plans (not of those
 * created so far), every stage's line is printed however quickly it passed (the promote stage takes
 * a moment when there is no champion), the run ends with its {@code [done]} block, and no training
 * line shows before a trial has trained. Then {@code keel model list} aligns its columns around the
 * long experiment id of the model it registered.
 */
class SubmitWaitShowsEveryStageAndTheSearchersPlannedTrialsTest {
  private static InProcessStack stack;
  private static KeelRun.Result submitted;

  @BeforeAll
  static void submitAndWait() throws Exception {
    stack = InProcessStack.start("submit-wait");
    Path incoming = Files.createDirectories(stack.storage.resolve("incoming"));
    Path request = incoming.resolve("pipeline.yaml");
    Files.writeString(
        request,
        """
        name: watched
        source: {format: csv, uri: %s, label_column: label}
        target_table: watched
        experiment:
          hyperparameters: {lr: {type: log, minval: -2.5, maxval: -1.5, base: 10}, batch_size: 16, hidden_units: 8}
          searcher: {name: random, metric: validation_accuracy, smaller_is_better: false, max_trials: 3,
                     max_concurrent_trials: 1, max_length: {batches: 20}}
          reproducibility: {seed: 3}
          model: {name: tabular_mlp}
        """
            .formatted(twoClouds(incoming.resolve("clouds.csv"))));
    submitted =
        KeelRun.keel("submit", request.toString(), "--wait", "--temporal", stack.server.address());
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void searchProgressCountsTheTrialsItsSearcherPlans() {
    assertEquals(0, submitted.code(), submitted.toString());
    List<String> search = lines("[search]   ");
    assertTrue(search.stream().anyMatch(l -> l.contains(" trials done")), submitted.out());
    for (String line : search) {
      assertTrue(
          line.startsWith("[search]   experiment ")
              || line.matches("\\[search\\]   \\d of 3 trials done.*"),
          line);
    }
    // how the search ended, before what came of it
    assertTrue(
        search
            .get(search.size() - 1)
            .startsWith("[search]   3 of 3 trials done, 100%, best validation_accuracy "),
        submitted.out());
  }

  @Test
  void everyStageHasItsLineAndTheRunEndsWithItsResult() {
    String out = submitted.out();
    List<String> order =
        List.of(
            "[etl]      table ",
            "[search]   experiment ",
            "[model]    watched v1 (",
            "[infer]    accuracy ",
            "[promote]  comparing watched v1 with the champion",
            "[done]  test accuracy ",
            "        model:             watched v1 (champion)",
            "        champion:          none before: promoted");
    int at = -1;
    for (String start : order) {
      int next = out.indexOf("\n" + start, at);
      assertTrue(next > at, "'" + start + "' after what came before it in\n" + out);
      at = next;
    }
    assertTrue(
        lines("[done]")
            .get(0)
            .matches("\\[done\\]  test accuracy \\d\\.\\d{4} on 100 test rows in \\d+ s"),
        out);
  }

  @Test
  void noTrainingLineBeforeATrialHasTrained() {
    assertFalse(submitted.out().contains(" 0/0 "), submitted.out());
    // what a Train activity heartbeats while it reads its data and builds its model: no progress
    // yet
    PendingActivityInfo preparing =
        PendingActivityInfo.newBuilder()
            .setActivityType(ActivityType.newBuilder().setName("Train"))
            .setHeartbeatDetails(
                KeelDataConverter.get()
                    .toPayloads(TrainProgress.getDefaultInstance())
                    .orElseThrow())
            .setAttempt(1)
            .build();
    assertEquals("", PipelineWatcher.activityLine("[trial 1] ", preparing));
    PendingActivityInfo training =
        preparing.toBuilder()
            .setHeartbeatDetails(
                KeelDataConverter.get()
                    .toPayloads(
                        TrainProgress.newBuilder()
                            .setBatches(5)
                            .setTargetBatches(20)
                            .setLoss(0.5)
                            .setBatchesPerSecond(10)
                            .build())
                    .orElseThrow())
            .build();
    assertEquals(
        "[trial 1] epoch 0  batch 5/20  loss 0.5000  10.0 batches/s",
        PipelineWatcher.activityLine("[trial 1] ", training));
  }

  @Test
  void modelListAlignsItsColumnsAroundALongExperimentId() {
    KeelRun.Result list = KeelRun.keel("model", "list", "--storage", stack.storage.toString());
    assertEquals(0, list.code(), list.toString());
    List<String> rows = list.out().lines().toList();
    String header = rows.get(0);
    String row = rows.get(1);
    String experiment = row.substring(row.indexOf("pipeline-watched-")).split(" ")[0];
    assertTrue(experiment.length() > 28, "an id longer than the column was: " + experiment);
    assertEquals(header.indexOf("STAGE"), row.indexOf("champion"), list.out());
    assertEquals(header.indexOf("DATA"), row.indexOf("watched v0"), list.out());
    assertEquals(header.indexOf("SOURCE"), row.indexOf(experiment), list.out());
    assertEquals(header.indexOf("METRICS"), row.indexOf("accuracy="), list.out());
  }

  private static List<String> lines(String prefix) {
    return submitted.out().lines().filter(l -> l.startsWith(prefix)).toList();
  }

  /** label, split, x, y: two well separated clouds of points, 400 training and 100 test rows. */
  private static Path twoClouds(Path file) throws Exception {
    Random random = new Random(7);
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("label,split,x,y");
      w.newLine();
      for (int i = 0; i < 500; i++) {
        int label = i % 2;
        w.write(
            String.format(
                Locale.ROOT,
                "%d,%s,%.4f,%.4f",
                label,
                i < 400 ? "train" : "test",
                label * 3 + random.nextGaussian() * 0.5,
                label * 3 + random.nextGaussian() * 0.5));
        w.newLine();
      }
    }
    return file;
  }
}
