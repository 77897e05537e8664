package dev.keel.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeltaTableWriterTest {
  Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = Path.of("target", "delta-writer", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(dir);
  }

  static Columns predictions(int n, long firstId, String ckpt, long sourceVersion) {
    long[] ids = new long[n];
    int[] labels = new int[n];
    double[] scores = new double[n];
    String[] ckpts = new String[n];
    long[] versions = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = firstId + i;
      labels[i] = i % 10;
      scores[i] = i / (double) n;
      ckpts[i] = ckpt;
      versions[i] = sourceVersion;
    }
    String[] uris = new String[n];
    String[] runs = new String[n];
    Arrays.fill(uris, "file:///source");
    Arrays.fill(runs, "run-" + ckpt);
    return Columns.of(n)
        .add("id", ids)
        .add("predicted_label", labels)
        .add("score", scores)
        .add("checkpoint_id", ckpts)
        .add("source_table_version", versions)
        .add("source_table_uri", uris)
        .add("model_version", uris)
        .add("run_id", runs);
  }

  @Test
  void stagedFilesAreInvisibleUntilOneCommitAddsThem() throws Exception {
    String uri = dir.resolve("staged").toUri().toString();
    DeltaTableWriter w = new DeltaTableWriter(uri, TableSchemas.PREDICTIONS);
    var first = w.stageFiles(uri + "/run-1/part-00000", predictions(300, 0, "a", 4));
    var second = w.stageFiles(uri + "/run-1/part-00001", predictions(200, 300, "a", 4));
    assertTrue(
        DeltaTables.latestVersion(DeltaTables.defaultEngine(), uri).isEmpty(),
        "staging creates no table");
    assertEquals(300, first.get(0).getStatistics().orElseThrow().getNumRecords());

    List<DataFileStatus> all = new ArrayList<>(first);
    all.addAll(second);
    assertEquals(0, w.newAppend().addFiles(all).commit());
    DeltaLog log = DeltaLog.forTable(new Configuration(), dir.resolve("staged").toString());
    assertEquals(500, count(log.snapshot()));
    assertTrue(
        log.snapshot().getAllFiles().get(0).getPath().startsWith("run-1/part-0000"),
        "the log references the staged files where they are, relative to the table");
  }

  @Test
  void predictionsAppendsAreVersionedAndReadableByStandalone() throws Exception {
    String uri = dir.resolve("predictions").toUri().toString();
    DeltaTableWriter w = new DeltaTableWriter(uri, TableSchemas.PREDICTIONS);
    assertEquals(0, w.append(predictions(10_000, 60_000, "ckpt-a", 0)));
    assertEquals(1, w.append(predictions(5, 0, "ckpt-b", 0)));
    // a second writer instance on the same table appends too
    assertEquals(
        2,
        new DeltaTableWriter(dir.resolve("predictions").toString(), TableSchemas.PREDICTIONS)
            .append(predictions(3, 100, null, 1)));

    DeltaLog log = DeltaLog.forTable(new Configuration(), dir.resolve("predictions").toString());
    assertEquals(2, log.snapshot().getVersion());
    assertEquals(10_000, count(log.getSnapshotForVersionAsOf(0)));
    assertEquals(10_008, count(log.snapshot()));
    List<String> ckpts = new ArrayList<>();
    try (CloseableIterator<RowRecord> rows = log.getSnapshotForVersionAsOf(1).open()) {
      while (rows.hasNext()) {
        RowRecord r = rows.next();
        if (r.getLong("id") == 3) {
          assertEquals(3, r.getInt("predicted_label"));
          assertEquals(0.6, r.getDouble("score"), 1e-12);
          assertEquals(0L, r.getLong("source_table_version"));
          ckpts.add(r.getString("checkpoint_id"));
        }
      }
    }
    assertEquals(List.of("ckpt-b"), ckpts);
    // all columns small: stats on all of them
    String stats = log.getSnapshotForVersionAsOf(0).getAllFiles().get(0).getStats();
    assertTrue(stats.contains("\"source_table_version\""), stats);
  }

  @Test
  void replacingContentsKeepsOnlyTheNewRowsAndTheHistory() throws Exception {
    String uri = dir.resolve("replaced").toString();
    DeltaTableWriter w = new DeltaTableWriter(uri, TableSchemas.PREDICTIONS);
    assertEquals(0, w.newAppend().add(predictions(100, 0, "ckpt-a", 0)).replaceContents().commit());
    assertEquals(1, w.newAppend().add(predictions(40, 0, "ckpt-b", 0)).replaceContents().commit());
    DeltaLog log = DeltaLog.forTable(new Configuration(), uri);
    assertEquals(40, count(log.snapshot()));
    assertEquals(100, count(log.getSnapshotForVersionAsOf(0)));
    // the replace is idempotent under a transaction id too
    assertEquals(
        2,
        w.newAppend()
            .add(predictions(7, 0, "ckpt-c", 0))
            .replaceContents()
            .transactionId("t", 1)
            .commit());
    assertThrows(
        ConcurrentTransactionException.class,
        () ->
            w.newAppend()
                .add(predictions(7, 0, "ckpt-c", 0))
                .replaceContents()
                .transactionId("t", 1)
                .commit());
    assertEquals(7, count(DeltaLog.forTable(new Configuration(), uri).snapshot()));
  }

  @Test
  void manyCommitsGetCheckpointed() throws Exception {
    String uri = dir.resolve("many").toString();
    DeltaTableWriter w = new DeltaTableWriter(uri, TableSchemas.PREDICTIONS);
    for (int i = 0; i < 11; i++) {
      assertEquals(i, w.append(predictions(2, i * 2L, "c", 0)));
    }
    // delta.checkpointInterval defaults to 10: the post-commit hook wrote one at v10
    assertTrue(
        Files.exists(dir.resolve("many/_delta_log/00000000000000000010.checkpoint.parquet")));
    DeltaLog log = DeltaLog.forTable(new Configuration(), uri);
    assertEquals(22, count(log.snapshot()));
  }

  @Test
  void transactionIdMakesAppendsIdempotent() {
    String uri = dir.resolve("txn").toString();
    DeltaTableWriter w = new DeltaTableWriter(uri, TableSchemas.PREDICTIONS);
    assertEquals(
        0, w.newAppend().add(predictions(2, 0, "c", 0)).transactionId("job-1", 1).commit());
    assertThrows(
        ConcurrentTransactionException.class,
        () -> w.newAppend().add(predictions(2, 0, "c", 0)).transactionId("job-1", 1).commit());
    assertEquals(
        1, w.newAppend().add(predictions(2, 0, "c", 0)).transactionId("job-1", 2).commit());
    var snap = DeltaTables.latestSnapshot(DeltaTables.defaultEngine(), uri).orElseThrow();
    assertEquals(
        2L, snap.getLatestTransactionVersion(DeltaTables.defaultEngine(), "job-1").orElseThrow());
    assertFalse(snap.getLatestTransactionVersion(DeltaTables.defaultEngine(), "job-2").isPresent());
  }

  @Test
  void racingCreatorsWithTheSameTransactionIdCommitOnce() throws Exception {
    String uri = dir.resolve("race").toString();
    var bothWritten = new CyclicBarrier(2);
    Runnable waitForOther = waitOnce(bothWritten);
    var pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Long>> results = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        results.add(
            pool.submit(
                () ->
                    new DeltaTableWriter(uri, TableSchemas.PREDICTIONS)
                        .newAppend()
                        .add(predictions(3, 0, "c", 0))
                        .transactionId("ingest-x", 1)
                        .beforeCommit(waitForOther)
                        .commit()));
      }
      List<Object> outcomes = new ArrayList<>();
      for (var f : results) {
        try {
          outcomes.add(f.get());
        } catch (ExecutionException e) {
          outcomes.add(e.getCause().getClass().getSimpleName());
        }
      }
      assertTrue(outcomes.contains(0L), outcomes.toString());
      assertTrue(outcomes.contains("ConcurrentTransactionException"), outcomes.toString());
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, DeltaTables.latestVersion(DeltaTables.defaultEngine(), uri).getAsLong());
  }

  @Test
  void racingCreatorsWithoutTransactionIdBothCommit() throws Exception {
    String uri = dir.resolve("race2").toString();
    var bothWritten = new CyclicBarrier(2);
    Runnable waitForOther = waitOnce(bothWritten);
    var pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Long>> results = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        results.add(
            pool.submit(
                () ->
                    new DeltaTableWriter(uri, TableSchemas.PREDICTIONS)
                        .newAppend()
                        .add(predictions(3, 0, "c", 0))
                        .beforeCommit(waitForOther)
                        .commit()));
      }
      Set<Long> versions = new TreeSet<>();
      for (var f : results) {
        versions.add(f.get());
      }
      assertEquals(Set.of(0L, 1L), versions);
    } finally {
      pool.shutdownNow();
    }
    assertEquals(6, count(DeltaLog.forTable(new Configuration(), uri).snapshot()));
  }

  @Test
  void wrongColumnsAreRejectedBeforeAnythingIsWritten() {
    String uri = dir.resolve("bad").toString();
    DeltaTableWriter w = new DeltaTableWriter(uri, TableSchemas.PREDICTIONS);
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                w.append(
                    Columns.of(1)
                        .add("id", new long[] {1})
                        .add("predicted_label", new long[] {1})));
    assertTrue(e.getMessage().contains("predicted_label"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Columns.of(2).add("id", new long[] {1}));
  }

  @Test
  void schemaMismatchWithExistingTableIsRejected() {
    String uri = dir.resolve("mismatch").toString();
    new DeltaTableWriter(uri, TableSchemas.PREDICTIONS).append(predictions(1, 0, "c", 0));
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new DeltaTableWriter(uri, TableSchemas.LABELED_IMAGES)
                    .append(
                        Columns.of(0)
                            .add("id", new long[0])
                            .add("label", new int[0])
                            .add("split", new String[0])
                            .add("image", new byte[0][])));
    assertTrue(e.getMessage().contains("has columns"), e.getMessage());
  }

  @Test
  void tablePathNormalisesPlainPathsAndFileUris() {
    String abs = dir.resolve("t").toUri().toString();
    assertEquals(abs, DeltaTables.tablePath(dir.resolve("t").toString()));
    assertEquals(abs, DeltaTables.tablePath("file://" + dir.resolve("t")));
    assertEquals("s3a://b/p", DeltaTables.tablePath("s3a://b/p"));
  }

  /** A before-commit hook that waits for the other writer on each thread's first attempt only. */
  static Runnable waitOnce(CyclicBarrier barrier) {
    ThreadLocal<Boolean> done = ThreadLocal.withInitial(() -> false);
    return () -> {
      if (done.get()) {
        return;
      }
      done.set(true);
      try {
        barrier.await(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
  }

  static long count(Snapshot s) throws Exception {
    long n = 0;
    try (CloseableIterator<RowRecord> rows = s.open()) {
      while (rows.hasNext()) {
        rows.next();
        n++;
      }
    }
    return n;
  }
}
