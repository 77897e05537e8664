package dev.keel.tables.drift;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import dev.keel.tables.dataset.LabeledImages;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code _keel/drift} written through the real Delta writer: a retried record of a run or of a
 * split's statistics commits once, reports come back per model version, and a split's statistics
 * are computed in raw pixel units with the true-label histogram.
 */
class DriftTableRecordsEachRunOnceAndEachSplitsStatisticsOnceTest {

  @Test
  void aRepeatedRecordCommitsOnceAndReadsBackByModelVersion() throws Exception {
    DriftTable table = new DriftTable(StorageRoot.of(TestDirs.create("drift-table").toString()));
    TableRef data = TableRef.newBuilder().setUri("file:///data/fashion").setVersion(4).build();
    DriftRecord drifted =
        DriftRecord.newBuilder()
            .setRunId("run-1")
            .setModelVersion("fashion/2")
            .setData(data)
            .setSplit("test")
            .setTimeMillis(1_000)
            .setReport(
                DriftReport.newBuilder()
                    .setMeasure("mean_shift")
                    .setScore(3.1)
                    .setThreshold(0.25)
                    .setDrifted(true))
            .build();
    table.record(drifted);
    table.record(drifted); // a retried RecordDrift
    table.record(
        drifted.toBuilder()
            .setRunId("run-2")
            .setModelVersion("fashion/3")
            .setTimeMillis(2_000)
            .setReport(
                DriftReport.newBuilder().setMeasure("mean_shift").setScore(0.02).setThreshold(0.25))
            .build());

    assertEquals(List.of(drifted), table.reports("fashion/2"));
    assertEquals(
        List.of("run-1", "run-2"), table.reports().stream().map(DriftRecord::getRunId).toList());
    List<Map<String, Object>> rows = rows(table);
    assertEquals(2, rows.size(), rows.toString());
    assertEquals(
        List.of(true, false),
        rows.stream()
            .sorted((a, b) -> ((String) a.get("key")).compareTo((String) b.get("key")))
            .map(r -> r.get("drifted"))
            .toList());
  }

  @Test
  void aSplitsStatisticsAreRawPixelMomentsWithTrueLabelsAndAreRecordedOnce() throws Exception {
    DriftTable table =
        new DriftTable(StorageRoot.of(TestDirs.create("drift-reference").toString()));
    // two 1x2 images: pixels (0, 255) and (100, 255), labels 2 and 0
    LabeledImages images =
        new LabeledImages(
            new long[] {1, 2}, new int[] {2, 0}, new byte[] {0, (byte) 255, 100, (byte) 255}, 1, 2);
    InputStatistics s = ReferenceStatistics.of(images);
    assertEquals(2, s.getRows());
    assertEquals(List.of(50.0, 255.0), s.getMeanList());
    assertEquals(List.of(2500.0, 0.0), s.getVarianceList());
    assertEquals(List.of(1L, 0L, 1L), s.getPredictedLabelCountsList());

    TableRef data = TableRef.newBuilder().setUri("file:///data/fashion").setVersion(1).build();
    assertTrue(table.reference(data, "train").isEmpty());
    table.recordReference(data, "train", s);
    table.recordReference(data, "train", s); // a second run that computed it too
    assertEquals(s, table.reference(data, "train").orElseThrow());
    assertTrue(
        table.reference(data.toBuilder().setVersion(2).build(), "train").isEmpty(),
        "keyed by version");
    assertEquals(1, rows(table).size());
  }

  private static List<Map<String, Object>> rows(DriftTable table) {
    var engine = DeltaTables.defaultEngine();
    return TableRows.read(
        engine, DeltaTables.latestSnapshot(engine, table.tableUri()).orElseThrow());
  }
}
