package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrialState;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.service.cli.KeelCli;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.tables.testing.KernelRows;
import dev.keel.workflows.experiment.TrialWorkflow;
import io.temporal.client.WorkflowFailedException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input (an unknown hyperparameter, a data version that does not exist) and bad luck (a
 * read-only checkpoint store, a checkpoint deleted under a running trial, a full disk while
 * checkpointing) each end the trial or experiment with one clear error — in the experiment's state
 * query, in the catalog and in {@code keel experiment describe} — and lose no earlier checkpoint or
 * catalog row. The two storage cases mount small tmpfs file systems and need root; they are skipped
 * without it.
 */
class BadInputAndBadLuckEndTrialsWithClearErrorsAndKeepHistoryTest {
  private static final String CONFIG =
      """
      name: %s
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 64, width: 8, optimizer: adam}
      searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 60}}
      min_validation_period: {batches: 20}
      max_restarts: 1
      reproducibility: {seed: 3}
      model: {name: fashion_cnn}
      """;

  private static FaultStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.allInProcess("bad-luck");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void unknownHyperparameterErrorsTheTrialNamingIt() throws Exception {
    String id =
        start(
            "unknown-hp",
            c -> c.replace("width: 8", "widht: 8"),
            ExperimentRunOptions.getDefaultInstance());
    ExperimentState s = finished(id);
    TrialState t = s.getTrials(0);
    assertEquals(TrialState.State.ERRORED, t.getState());
    assertEquals(0, t.getRestarts(), "a bad request is not retried");
    assertErrorShown(id, 1, "hyperparameters.widht");
  }

  @Test
  void missingDataVersionErrorsTheExperimentBeforeAnyTrial() throws Exception {
    String id =
        start(
            "no-such-version",
            c -> c.replace("{table: fashion_mnist}", "{table: fashion_mnist, version: 42}"),
            ExperimentRunOptions.getDefaultInstance());
    assertThrows(WorkflowFailedException.class, () -> stack.result(id, Duration.ofMinutes(1)));
    ExperimentState s = ExperimentLauncher.state(stack.client, id);
    assertEquals(ExperimentState.State.ERRORED, s.getState());
    assertEquals(0, s.getTrialsCount());
    assertTrue(s.getError().contains("has no version 42"), s.getError());
    assertTrue(describe(id).contains("has no version 42"), describe(id));
    List<Map<String, Object>> rows = catalog("experiments", id);
    assertTrue(rows.stream().anyMatch(r -> "ERRORED".equals(r.get("state"))), rows.toString());
  }

  @Test
  void tableVersionWithoutTrainingRowsErrorsTheExperimentBeforeAnyTrial() throws Exception {
    Path csv =
        Files.createDirectories(stack.storage.resolve("incoming")).resolve("only-test-rows.csv");
    Files.writeString(csv, "label,split,a,b\n0,test,1,2\n1,test,3,4\n");
    new IngestActivitiesImpl(stack.root)
        .ingest(
            IngestRequest.newBuilder()
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(DataSource.Format.csv)
                        .setUri(csv.toString())
                        .setLabelColumn("label"))
                .setTableUri("only_test_rows")
                .build());
    String id =
        start(
            "no-training-rows",
            c ->
                c.replace("{table: fashion_mnist}", "{table: only_test_rows}")
                    .replace("fashion_cnn", "tabular_mlp")
                    .replace(", width: 8", ""),
            ExperimentRunOptions.getDefaultInstance());
    assertThrows(WorkflowFailedException.class, () -> stack.result(id, Duration.ofMinutes(1)));
    ExperimentState s = ExperimentLauncher.state(stack.client, id);
    assertEquals(ExperimentState.State.ERRORED, s.getState());
    assertEquals(0, s.getTrialsCount());
    String table =
        stack.storage.resolve("tables/only_test_rows").toUri().toString().replaceAll("/$", "");
    assertEquals(
        "table " + table + " version 0 has no rows in the train split: nothing to train on",
        s.getError());
    List<Map<String, Object>> rows = catalog("experiments", id);
    assertTrue(rows.stream().anyMatch(r -> "ERRORED".equals(r.get("state"))), rows.toString());
  }

  @Test
  void readOnlyCheckpointStorageErrorsTheTrialWithTheFileSystemsWords() throws Exception {
    Path readOnly = mount("read-only", "ro,size=1m");
    try {
      String id =
          start(
              "read-only",
              c -> c + "checkpoint_storage: {storage_path: '" + readOnly.toUri() + "'}\n",
              ExperimentRunOptions.getDefaultInstance());
      ExperimentState s = finished(id);
      assertEquals(TrialState.State.ERRORED, s.getTrials(0).getState());
      assertEquals(1, s.getTrials(0).getRestarts(), "an I/O error is retried max_restarts times");
      assertErrorShown(id, 1, "Read-only file system");
      assertEquals(
          ExperimentState.State.ERRORED,
          s.getState(),
          "its only trial failed: nothing to register");
      assertTrue(
          s.getError().startsWith("every trial failed; trial 1: ")
              && s.getError().contains("Read-only file system"),
          s.getError());
    } finally {
      unmount(readOnly);
    }
  }

  @Test
  void checkpointDeletedUnderAPausedTrialErrorsItAndKeepsTheOtherCheckpoints() throws Exception {
    String id = start("deleted", c -> c, ExperimentRunOptions.getDefaultInstance());
    TrialState paused = pauseAfterFirstValidation(id);
    CheckpointRef latest = paused.getLatestCheckpoint();
    Path dir = Path.of(URI.create(latest.getUri()));
    FaultStack.deleteTree(dir);
    ExperimentLauncher.stub(stack.client, id).activate();

    ExperimentState s = finished(id);
    assertEquals(TrialState.State.ERRORED, s.getTrials(0).getState());
    assertErrorShown(id, 1, "no checkpoint directory at");
    List<Map<String, Object>> saved =
        catalog("checkpoints", id).stream().filter(r -> "SAVED".equals(r.get("state"))).toList();
    assertEquals(
        paused.getCheckpointsCount(),
        saved.size(),
        "every checkpoint reported before the deletion: " + saved);
    assertEquals(
        paused.getCheckpointsCount(),
        catalog("metrics", id).stream()
            .filter(r -> "validation_accuracy".equals(r.get("name")))
            .count());
  }

  @Test
  void fullDiskDuringACheckpointErrorsTheTrialAndKeepsEarlierCheckpoints() throws Exception {
    Path small = mount("full", "size=16m");
    try {
      String id =
          start(
              "disk-full",
              c -> c + "checkpoint_storage: {storage_path: '" + small.toUri() + "'}\n",
              ExperimentRunOptions.getDefaultInstance());
      TrialState paused = pauseAfterFirstValidation(id);
      fill(small);
      ExperimentLauncher.stub(stack.client, id).activate();

      ExperimentState s = finished(id);
      assertEquals(TrialState.State.ERRORED, s.getTrials(0).getState());
      assertErrorShown(id, 1, "No space left on device");
      // The checkpoints written before the disk filled are complete and still there, unless
      // checkpoint GC
      // dropped them by policy at the end (then the catalog says so); the latest is kept; no
      // partial one is left.
      Set<Object> collected =
          catalog("checkpoints", id).stream()
              .filter(r -> "DELETED".equals(r.get("state")))
              .map(r -> r.get("uuid"))
              .collect(Collectors.toSet());
      for (CheckpointRef c : paused.getCheckpointsList()) {
        Path dir = Path.of(URI.create(c.getUri()));
        assertTrue(
            Files.isRegularFile(dir.resolve("MANIFEST")) != collected.contains(c.getUuid()),
            dir + " lost");
      }
      assertTrue(
          Files.isRegularFile(
              Path.of(URI.create(paused.getLatestCheckpoint().getUri())).resolve("MANIFEST")));
      try (var trialDirs = Files.walk(small, 3)) {
        assertTrue(
            trialDirs.noneMatch(p -> p.getFileName().toString().startsWith(".staging-")),
            "partial checkpoint left");
      }
      assertEquals(
          paused.getCheckpointsCount(),
          catalog("checkpoints", id).stream().filter(r -> "SAVED".equals(r.get("state"))).count());
    } finally {
      unmount(small);
    }
  }

  // ---- helpers ----

  private static String start(
      String name, UnaryOperator<String> edit, ExperimentRunOptions options) {
    return stack.startExperiment(FaultStack.config(edit.apply(CONFIG.formatted(name))), options);
  }

  /** The experiment's final state (ERRORED, with the trial's error, when its only trial failed). */
  private static ExperimentState finished(String id) throws Exception {
    return stack.result(id, Duration.ofMinutes(2)).getState();
  }

  /** Pauses the experiment once its trial validated, and waits until the trial is idle. */
  private static TrialState pauseAfterFirstValidation(String id) throws Exception {
    FaultStack.await(
        "a first validation",
        Duration.ofMinutes(1),
        () ->
            ExperimentLauncher.state(stack.client, id).getTrialsList().stream()
                .anyMatch(t -> t.getCompletedLength().getBatches() > 0));
    ExperimentLauncher.stub(stack.client, id).pause();
    String trialWorkflow = id + "/trial-1";
    TrialWorkflow trial = stack.client.newWorkflowStub(TrialWorkflow.class, trialWorkflow);
    FaultStack.await(
        "the trial to pause",
        Duration.ofMinutes(1),
        () ->
            trial.state().getState() == TrialState.State.PAUSED
                && stack.describe(trialWorkflow).getPendingActivitiesCount() == 0);
    Length completed = trial.state().getCompletedLength();
    FaultStack.await(
        "the experiment to hear of the last step",
        Duration.ofSeconds(30),
        () ->
            ExperimentLauncher.state(stack.client, id)
                .getTrials(0)
                .getCompletedLength()
                .equals(completed));
    TrialState t = ExperimentLauncher.state(stack.client, id).getTrials(0);
    assertTrue(
        t.getCompletedLength().getBatches() < t.getTargetLength().getBatches(), t.toString());
    return t;
  }

  private static void assertErrorShown(String id, long trialId, String expected) throws Exception {
    TrialState t =
        ExperimentLauncher.state(stack.client, id).getTrialsList().stream()
            .filter(x -> x.getTrialId() == trialId)
            .findFirst()
            .orElseThrow();
    assertTrue(t.getError().contains(expected), "query: " + t.getError());
    List<Map<String, Object>> rows = catalog("trials", id);
    assertTrue(
        rows.stream()
            .anyMatch(
                r ->
                    "ERRORED".equals(r.get("state"))
                        && r.get("error") != null
                        && ((String) r.get("error")).contains(expected)),
        "catalog trials: " + rows);
    String described = describe(id);
    assertTrue(described.contains(expected), "keel experiment describe:\n" + described);
    System.out.printf("%s: %s%n", id, t.getError());
  }

  private static List<Map<String, Object>> catalog(String table, String id) throws Exception {
    return KernelRows.read(stack.storage.resolve("_keel").resolve(table).toUri().toString())
        .stream()
        .filter(r -> id.equals(r.get("experiment_id")))
        .toList();
  }

  /** {@code keel experiment describe ID} against the stack, its standard output. */
  private static synchronized String describe(String id) {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertEquals(
          0, KeelCli.run("experiment", "describe", id, "--temporal", stack.server.address()));
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * A tmpfs mounted with {@code options} under the storage root; skips the test where mounting is
   * not allowed.
   */
  private static Path mount(String name, String options) throws Exception {
    Path dir = Files.createDirectories(stack.storage.resolve("mnt-" + name));
    Process p =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString())
            .redirectErrorStream(true)
            .start();
    boolean done = p.waitFor(20, TimeUnit.SECONDS);
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    Assumptions.assumeTrue(
        done && p.exitValue() == 0, "cannot mount a tmpfs here (needs root): " + output);
    return dir;
  }

  private static void unmount(Path dir) throws Exception {
    Process p =
        new ProcessBuilder("umount", "-l", dir.toString()).redirectErrorStream(true).start();
    p.waitFor(20, TimeUnit.SECONDS);
  }

  /** Writes a file until the file system is full. */
  private static void fill(Path dir) throws IOException {
    byte[] block = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(dir.resolve("ballast"))) {
      while (true) {
        out.write(block);
      }
    } catch (IOException e) {
      assertTrue(String.valueOf(e.getMessage()).contains("No space left"), e.toString());
    }
  }
}
