package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.tables.testing.KernelRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A small real search (random over lr, 3 trials x 90 batches of the CNN on Fashion-MNIST, validated
 * every 30, checkpointed every 10, into the experiment's own {@code
 * checkpoint_storage.storage_path}) with the catalog on: the {@code _keel/} Delta tables hold the
 * experiment, its trials, their metrics and every checkpoint, periodic ones included; checkpoint GC
 * removed exactly the directories the default policy (best 1 + latest 1 per trial) does not keep,
 * recorded them as DELETED, and the best checkpoint survives intact.
 */
class RealExperimentRecordsItsHistoryAndCollectsCheckpointGarbageTest {
  private static FaultStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.allInProcess("catalog-gc");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void catalogHoldsEveryRowAndGcKeepsOnlyBestAndLatestPerTrial() throws Exception {
    Path checkpointRoot = Files.createDirectories(stack.storage.resolve("own-checkpoint-root"));
    String id =
        stack.startExperiment(
            FaultStack.config(
                """
        name: catalog-gc
        checkpoint_storage: {storage_path: '%s'}
        min_checkpoint_period: {batches: 10}
        data: {table: fashion_mnist}
        hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 64, width: 8, optimizer: adam}
        searcher: {name: random, metric: validation_accuracy, smaller_is_better: false, max_trials: 3, max_length: {batches: 90}}
        min_validation_period: {batches: 30}
        reproducibility: {seed: 5}
        model: {name: fashion_cnn}
        """
                    .formatted(checkpointRoot.toUri())),
            ExperimentRunOptions.getDefaultInstance());
    ExperimentResult result = stack.result(id, Duration.ofMinutes(3));
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(3, result.getState().getTrialsCount());

    // What the policy keeps: per trial its best (by validation_accuracy) and its latest checkpoint;
    // the periodic ones in between (every 10 batches inside each 30-batch step) all go.
    Set<String> saved = new HashSet<>();
    Set<String> periodic = new HashSet<>();
    Set<String> kept = new HashSet<>();
    for (TrialState t : result.getState().getTrialsList()) {
      assertEquals(TrialState.State.COMPLETED, t.getState());
      assertEquals(
          List.of(30L, 60L, 90L),
          t.getCheckpointsList().stream().map(CheckpointRef::getBatches).toList());
      assertEquals(
          List.of(10L, 20L, 40L, 50L, 70L, 80L),
          t.getPeriodicCheckpointsList().stream().map(CheckpointRef::getBatches).toList());
      assertTrue(
          t.getPeriodicCheckpointsList().stream()
              .allMatch(c -> c.getUri().startsWith(checkpointRoot.toUri().toString())),
          t.getPeriodicCheckpointsList().toString());
      t.getCheckpointsList().forEach(c -> saved.add(c.getUuid()));
      t.getPeriodicCheckpointsList().forEach(c -> periodic.add(c.getUuid()));
      kept.add(t.getLatestCheckpoint().getUuid());
      kept.add(
          t.getCheckpointsList().stream()
              .max(Comparator.comparingDouble(c -> c.getMetricsOrThrow("validation_accuracy")))
              .orElseThrow()
              .getUuid());
    }
    Set<String> deleted = new HashSet<>(saved);
    deleted.removeAll(kept);
    deleted.addAll(periodic);
    saved.addAll(periodic);
    assertTrue(!deleted.isEmpty() && kept.size() >= 3, "kept " + kept + ", deleted " + deleted);

    // On disk: exactly the kept checkpoint directories, each complete.
    Path checkpoints = checkpointRoot.resolve(id);
    Set<String> onDisk;
    try (Stream<Path> dirs = Files.list(checkpoints).flatMap(FaultStackFiles::list)) {
      onDisk =
          dirs.filter(Files::isDirectory)
              .map(p -> p.getFileName().toString())
              .collect(Collectors.toSet());
    }
    assertEquals(kept, onDisk, "checkpoint directories left by GC");
    Path best = Path.of(URI.create(result.getBestCheckpoint().getUri()));
    assertTrue(kept.contains(result.getBestCheckpoint().getUuid()));
    assertTrue(
        Files.isRegularFile(best.resolve("MANIFEST"))
            && Files.isRegularFile(best.resolve("parameters.djl")));

    // The catalog, read with Delta Kernel.
    String catalog = stack.storage.resolve("_keel").toUri().toString();
    List<Map<String, Object>> experiments = rows(catalog + "experiments", id);
    assertEquals(Set.of("ACTIVE", "COMPLETED"), column(experiments, "state"));
    assertEquals(stack.ingest().getTable().getVersion(), experiments.get(0).get("data_version"));

    List<Map<String, Object>> trials = rows(catalog + "trials", id);
    assertEquals(Set.of(1L, 2L, 3L), column(trials, "trial_id"));
    for (long trial = 1; trial <= 3; trial++) {
      long t = trial;
      assertTrue(
          trials.stream()
              .anyMatch(r -> r.get("trial_id").equals(t) && "COMPLETED".equals(r.get("state"))),
          "trial " + trial + " COMPLETED row: " + trials);
      assertTrue(
          trials.stream().allMatch(r -> ((String) r.get("hparams_json")).contains("lr")),
          trials.toString());
    }

    List<Map<String, Object>> metrics = rows(catalog + "metrics", id);
    for (long trial = 1; trial <= 3; trial++) {
      long t = trial;
      assertEquals(
          Set.of(30L, 60L, 90L),
          metrics.stream()
              .filter(
                  r -> r.get("trial_id").equals(t) && "validation_accuracy".equals(r.get("name")))
              .map(r -> r.get("batches"))
              .collect(Collectors.toSet()),
          "validation_accuracy rows of trial " + trial);
    }

    List<Map<String, Object>> rows = rows(catalog + "checkpoints", id);
    assertEquals(saved, uuids(rows, "SAVED"));
    assertEquals(deleted, uuids(rows, "DELETED"));
    for (Map<String, Object> r : rows) {
      if ("SAVED".equals(r.get("state"))) {
        // a periodic checkpoint has no searcher metric
        assertTrue(
            (Long) r.get("size_bytes") > 0
                && (r.get("metric") != null) != periodic.contains(r.get("uuid"))
                && ((String) r.get("uri")).startsWith("file:"),
            r.toString());
      }
    }
    System.out.printf(
        "catalog: %d experiment, %d trial, %d metric, %d checkpoint rows; GC deleted %d of %d checkpoints"
            + " (%d periodic)%n",
        experiments.size(),
        trials.size(),
        metrics.size(),
        rows.size(),
        deleted.size(),
        saved.size(),
        periodic.size());
  }

  private static List<Map<String, Object>> rows(String table, String experimentId)
      throws Exception {
    return KernelRows.read(table).stream()
        .filter(r -> experimentId.equals(r.get("experiment_id")))
        .toList();
  }

  private static Set<Object> column(List<Map<String, Object>> rows, String name) {
    return rows.stream().map(r -> r.get(name)).collect(Collectors.toSet());
  }

  private static Set<String> uuids(List<Map<String, Object>> rows, String state) {
    return rows.stream()
        .filter(r -> state.equals(r.get("state")))
        .map(r -> (String) r.get("uuid"))
        .collect(Collectors.toSet());
  }

  /** Files.list without the checked exception. */
  static final class FaultStackFiles {
    static Stream<Path> list(Path dir) {
      try (Stream<Path> files = Files.list(dir)) {
        return files.toList().stream();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
