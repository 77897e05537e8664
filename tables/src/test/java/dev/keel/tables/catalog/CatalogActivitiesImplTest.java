package dev.keel.tables.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogAppendResult;
import dev.keel.api.v1.CatalogRow;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.testing.KernelRows;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The catalog tables on a local root, read back with Delta Standalone (an independent reader). */
class CatalogActivitiesImplTest {
  static final long T0 = 1_790_000_000_000L;

  Path root;
  CatalogActivitiesImpl catalog;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "catalog", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
    catalog = new CatalogActivitiesImpl(StorageRoot.of(root.toString()));
  }

  /** One row of each kind, the way the experiment workflow's CatalogBuffer fills them. */
  static List<CatalogRow> sampleRows(String exp) {
    return List.of(
        CatalogRow.newBuilder()
            .setKind("experiments")
            .setExperimentId(exp)
            .setState("ACTIVE")
            .setName("mnist-asha")
            .setUri("file:///data/tables/fashion/")
            .setLength(3)
            .setJson("{\"name\":\"mnist-asha\"}")
            .setTimeMillis(T0)
            .build(),
        CatalogRow.newBuilder()
            .setKind("trials")
            .setExperimentId(exp)
            .setTrialId(1)
            .setState("ACTIVE")
            .setLength(0)
            .setJson("{\"lr\":0.01}")
            .setTimeMillis(T0 + 1)
            .build(),
        CatalogRow.newBuilder()
            .setKind("trials")
            .setExperimentId(exp)
            .setTrialId(2)
            .setState("ERRORED")
            .setName("boom: NaN loss")
            .setLength(200)
            .setCheckpointUuid("parent-ckpt")
            .setJson("{\"lr\":1.0}")
            .setTimeMillis(T0 + 2)
            .build(),
        CatalogRow.newBuilder()
            .setKind("metrics")
            .setExperimentId(exp)
            .setTrialId(1)
            .setName("validation_accuracy")
            .setValue(0.875)
            .setLength(400)
            .setBatches(400)
            .setCheckpointUuid("c1")
            .setTimeMillis(T0 + 3)
            .build(),
        CatalogRow.newBuilder()
            .setKind("metrics")
            .setExperimentId(exp)
            .setTrialId(1)
            .setName("validation_loss")
            .setValue(0.31)
            .setLength(400)
            .setBatches(400)
            .setCheckpointUuid("c1")
            .setTimeMillis(T0 + 3)
            .build(),
        CatalogRow.newBuilder()
            .setKind("checkpoints")
            .setExperimentId(exp)
            .setTrialId(1)
            .setState("SAVED")
            .setCheckpointUuid("c1")
            .setUri("file:///data/checkpoints/e/trial-1/c1/")
            .setSizeBytes(12_345)
            .setBatches(400)
            .setLength(400)
            .setValue(0.875)
            .setTimeMillis(T0 + 3)
            .build(),
        CatalogRow.newBuilder()
            .setKind("checkpoints")
            .setExperimentId(exp)
            .setTrialId(1)
            .setState("DELETED")
            .setCheckpointUuid("c0")
            .setUri("file:///data/checkpoints/e/trial-1/c0/")
            .setSizeBytes(12_000)
            .setBatches(200)
            .setTimeMillis(T0 + 4)
            .build());
  }

  static CatalogAppend batch(String exp, long sequence, List<CatalogRow> rows) {
    return CatalogAppend.newBuilder()
        .setExperimentId(exp)
        .setSequence(sequence)
        .addAllRows(rows)
        .build();
  }

  String table(String name) {
    return root.resolve("_keel").resolve(name).toString();
  }

  DeltaLog log(String name) {
    return DeltaLog.forTable(new Configuration(), table(name));
  }

  static List<RowRecord> rows(Snapshot s) throws Exception {
    List<RowRecord> out = new ArrayList<>();
    try (CloseableIterator<RowRecord> it = s.open()) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  Map<String, Long> counts() throws Exception {
    return Map.of(
        "experiments", (long) rows(log("experiments").update()).size(),
        "trials", (long) rows(log("trials").update()).size(),
        "metrics", (long) rows(log("metrics").update()).size(),
        "checkpoints", (long) rows(log("checkpoints").update()).size());
  }

  @Test
  void appendWritesOneCommitPerTableAndReappendingTheSameSequenceWritesNothing() throws Exception {
    CatalogAppendResult first = catalog.append(batch("exp-1", 1, sampleRows("exp-1")));
    assertFalse(first.getAlreadyCommitted());
    assertEquals(
        Map.of("experiments", 0L, "trials", 0L, "metrics", 0L, "checkpoints", 0L),
        first.getVersionsMap());
    Map<String, Long> expected =
        Map.of("experiments", 1L, "trials", 2L, "metrics", 2L, "checkpoints", 2L);
    assertEquals(expected, counts());

    CatalogAppendResult again = catalog.append(batch("exp-1", 1, sampleRows("exp-1")));
    assertTrue(again.getAlreadyCommitted());
    assertEquals(first.getVersionsMap(), again.getVersionsMap());
    assertEquals(expected, counts(), "a retried batch adds no rows");
    for (String t : CatalogTables.NAMES) {
      assertEquals(0, log(t).update().getVersion(), t + ": no new version");
    }

    CatalogAppendResult next = catalog.append(batch("exp-1", 2, sampleRows("exp-1").subList(3, 5)));
    assertFalse(next.getAlreadyCommitted());
    assertEquals(
        Map.of("metrics", 1L), next.getVersionsMap(), "only tables with rows get a commit");
    assertEquals(4, rows(log("metrics").update()).size());
  }

  @Test
  void aRetryAfterAPartlyCommittedBatchWritesOnlyTheMissingTables() throws Exception {
    List<CatalogRow> rows = sampleRows("exp-p");
    // the first attempt committed the metrics table, then the worker died
    catalog.append(batch("exp-p", 7, rows.subList(3, 5)));
    CatalogAppendResult retry = catalog.append(batch("exp-p", 7, rows));
    assertFalse(retry.getAlreadyCommitted(), "three tables still needed the batch");
    assertEquals(
        Map.of("experiments", 1L, "trials", 2L, "metrics", 2L, "checkpoints", 2L), counts());
    assertEquals(0, log("metrics").update().getVersion());
  }

  @Test
  void experimentsKeepTheirOwnSequences() throws Exception {
    catalog.append(batch("exp-a", 1, sampleRows("exp-a")));
    CatalogAppendResult b = catalog.append(batch("exp-b", 1, sampleRows("exp-b")));
    assertFalse(b.getAlreadyCommitted(), "sequence 1 of another experiment is another batch");
    assertEquals(4, rows(log("metrics").update()).size());
  }

  @Test
  void everyTableHoldsTypedColumnsAnyDeltaReaderCanRead() throws Exception {
    catalog.append(batch("exp-t", 1, sampleRows("exp-t")));

    RowRecord e = rows(log("experiments").update()).get(0);
    assertEquals(
        List.of(
            "experiment_id", "name", "state", "data_table", "data_version", "time", "config_json"),
        List.of(log("experiments").update().getMetadata().getSchema().getFieldNames()));
    assertEquals("exp-t", e.getString("experiment_id"));
    assertEquals("mnist-asha", e.getString("name"));
    assertEquals("ACTIVE", e.getString("state"));
    assertEquals("file:///data/tables/fashion/", e.getString("data_table"));
    assertEquals(3L, e.getLong("data_version"));
    // Delta Standalone decodes only INT96 timestamps; Kernel (and Spark, delta-rs, DuckDB) read
    // INT64 micros
    assertEquals(
        "timestamp",
        log("experiments")
            .update()
            .getMetadata()
            .getSchema()
            .get("time")
            .getDataType()
            .getTypeName());
    assertEquals(
        Instant.ofEpochMilli(T0), KernelRows.read(table("experiments")).get(0).get("time"));
    assertEquals("{\"name\":\"mnist-asha\"}", e.getString("config_json"));

    List<RowRecord> trials = rows(log("trials").update());
    trials.sort(Comparator.comparingLong(r -> r.getLong("trial_id")));
    assertNull(trials.get(0).getString("error"), "no error: NULL, not an empty string");
    assertNull(trials.get(0).getString("source_checkpoint"));
    assertEquals("ERRORED", trials.get(1).getString("state"));
    assertEquals("boom: NaN loss", trials.get(1).getString("error"));
    assertEquals(200L, trials.get(1).getLong("length"));
    assertEquals("parent-ckpt", trials.get(1).getString("source_checkpoint"));
    assertEquals("{\"lr\":1.0}", trials.get(1).getString("hparams_json"));

    List<RowRecord> metrics = rows(log("metrics").update());
    metrics.sort(Comparator.comparing(r -> r.getString("name")));
    RowRecord acc = metrics.get(0);
    assertEquals("validation_accuracy", acc.getString("name"));
    assertEquals(0.875, acc.getDouble("value"));
    assertEquals(1L, acc.getLong("trial_id"));
    assertEquals(400L, acc.getLong("length"));
    assertEquals(400L, acc.getLong("batches"));
    assertEquals("c1", acc.getString("checkpoint_uuid"));
    assertEquals(
        List.of(Instant.ofEpochMilli(T0 + 3), Instant.ofEpochMilli(T0 + 3)),
        KernelRows.read(table("metrics")).stream().map(m -> m.get("time")).toList());

    List<RowRecord> ckpts = rows(log("checkpoints").update());
    ckpts.sort(Comparator.comparing(r -> r.getString("state")));
    RowRecord deleted = ckpts.get(0);
    RowRecord saved = ckpts.get(1);
    assertEquals("DELETED", deleted.getString("state"));
    assertEquals("c0", deleted.getString("uuid"));
    assertEquals(12_000L, deleted.getLong("size_bytes"));
    assertTrue(
        deleted.isNullAt("metric") && deleted.isNullAt("length"), "a deletion carries no metric");
    assertEquals("SAVED", saved.getString("state"));
    assertEquals(0.875, saved.getDouble("metric"));
    assertEquals(400L, saved.getLong("length"));
    assertEquals("file:///data/checkpoints/e/trial-1/c1/", saved.getString("uri"));
  }

  @Test
  void rowsWithoutExperimentIdTakeTheBatchs() throws Exception {
    catalog.append(
        batch(
            "exp-x",
            1,
            List.of(
                CatalogRow.newBuilder()
                    .setKind("metrics")
                    .setName("loss")
                    .setValue(1)
                    .setTimeMillis(T0)
                    .build())));
    assertEquals("exp-x", rows(log("metrics").update()).get(0).getString("experiment_id"));
  }

  @Test
  void anUnknownKindFailsWithoutRetriesBeforeAnythingIsWritten() {
    List<CatalogRow> rows = new ArrayList<>(sampleRows("exp-u"));
    rows.add(CatalogRow.newBuilder().setKind("models").build());
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> catalog.append(batch("exp-u", 1, rows)));
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("'models'"), f.getOriginalMessage());
    assertFalse(Files.exists(root.resolve("_keel")), "nothing written");
  }

  @Test
  void aBatchOfAFewHundredRowsCommitsWellUnderASecondPerTable() {
    catalog.append(batch("warm-up", 1, sampleRows("warm-up"))); // class loading, table creation
    List<CatalogRow> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      for (CatalogRow r : sampleRows("exp-big")) {
        rows.add(r.toBuilder().setTrialId(i).build());
      }
    }
    for (long seq = 1; seq <= 3; seq++) {
      long t0 = System.nanoTime();
      CatalogAppendResult r = catalog.append(batch("exp-big", seq, rows));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.println("TIMING catalog append of " + rows.size() + " rows to 4 tables ms=" + ms);
      assertFalse(r.getAlreadyCommitted());
      assertTrue(ms < 4 * 1000, "4 commits of " + rows.size() + " rows took " + ms + " ms");
    }
  }
}
