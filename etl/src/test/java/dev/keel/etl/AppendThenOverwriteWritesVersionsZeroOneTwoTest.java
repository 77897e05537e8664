package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DataHistory;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.DataVersion;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.testing.RealData;
import dev.keel.etl.testing.TableRows;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * append, append, overwrite: versions 0, 1, 2 holding the right rows; a repeated ingest (a retry)
 * writes nothing; the history shows every version with its source, checksum and counts.
 */
class AppendThenOverwriteWritesVersionsZeroOneTwoTest {
  Path root;
  String table;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "modes", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
    table = root.resolve("t").toString();
  }

  /** Rows from..to-1 of the real data as one CSV with a split column (every 4th row is test). */
  Path csv(String name, int from, int to) throws Exception {
    List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
    for (int i = from; i < to; i++) {
      lines.add(RealData.csvLine(i, i % 4 == 0 ? "test" : "train"));
    }
    Path p = root.resolve(name);
    Files.write(p, lines);
    return p;
  }

  static IngestRequest request(Path csv, String mode, String table) {
    return IngestRequest.newBuilder()
        .setSource(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri(csv.toString())
                .setLabelColumn("label")
                .setMode(
                    (mode.isEmpty()
                        ? IngestMode.INGEST_MODE_UNSPECIFIED
                        : IngestMode.valueOf(mode))))
        .setTableUri(table)
        .build();
  }

  static Map<String, Long> perClass(int from, int to) {
    Map<String, Long> m = new TreeMap<>();
    for (int i = from; i < to; i++) {
      m.merge(RealData.className(RealData.label(i)), 1L, Long::sum);
    }
    return m;
  }

  @Test
  void appendAppendOverwriteMakeThreeVersionsAndARetryWritesNothing() throws Exception {
    IngestActivitiesImpl etl = new IngestActivitiesImpl();
    // the first file holds every class, so later appends map onto its class names
    IngestResult v0 = etl.ingest(request(csv("a.csv", 0, 100), "append", table));
    IngestResult v1 = etl.ingest(request(csv("b.csv", 100, 160), "append", table));
    IngestResult v2 = etl.ingest(request(csv("c.csv", 500, 540), "overwrite", table));
    assertEquals(
        List.of(0L, 1L, 2L),
        List.of(
            v0.getTable().getVersion(), v1.getTable().getVersion(), v2.getTable().getVersion()));
    assertEquals(IngestMode.overwrite, v2.getMode());

    assertEquals(100, TableRows.read(table, 0).size());
    List<TableRows.Row> at1 = TableRows.read(table, 1);
    assertEquals(160, at1.size());
    assertEquals(
        LongStream.range(0, 160).boxed().toList(),
        at1.stream().map(TableRows.Row::id).toList(),
        "an append continues the ids");
    List<TableRows.Row> at2 = TableRows.read(table, 2);
    assertEquals(40, at2.size(), "overwrite removed the previous rows in the same commit");
    assertEquals(
        LongStream.range(0, 40).boxed().toList(), at2.stream().map(TableRows.Row::id).toList());
    assertEquals(Map.of("train", 30L, "test", 10L), TableRows.perSplit(at2));

    // the same overwrite again (an activity retry after its commit) writes nothing
    IngestResult retry = etl.ingest(request(root.resolve("c.csv"), "overwrite", table));
    assertTrue(retry.getAlreadyIngested());
    assertEquals(2, retry.getTable().getVersion());
    assertEquals(v2.getRowsPerSplitMap(), retry.getRowsPerSplitMap());
    assertEquals(2, DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).getAsLong());

    // but appending a.csv again is new work: the latest version was not written by it
    IngestResult v3 = etl.ingest(request(root.resolve("a.csv"), "append", table));
    assertFalse(v3.getAlreadyIngested());
    assertEquals(3, v3.getTable().getVersion());
    assertEquals(140, TableRows.read(table, 3).size());

    DataHistory h = DataTableHistory.describe(DeltaTables.defaultEngine(), table);
    assertEquals(4, h.getVersionsCount());
    assertEquals(
        List.of("append", "append", "overwrite", "append"),
        h.getVersionsList().stream().map(DataVersion::getOperation).toList());
    assertEquals(
        List.of(100L, 160L, 40L, 140L),
        h.getVersionsList().stream()
            .map(v -> v.getRowsPerSplitMap().values().stream().mapToLong(Long::longValue).sum())
            .toList());
    DataVersion d1 = h.getVersions(1);
    assertEquals(root.resolve("b.csv").toString(), d1.getSourceUri());
    assertEquals(v1.getSourceChecksum(), d1.getSourceChecksum());
    assertEquals("csv", d1.getSourceFormat());
    Map<String, Long> upTo160 = perClass(0, 160);
    assertEquals(upTo160, d1.getRowsPerLabelMap(), "per class name, counted from the data of v1");
    assertEquals(perClass(500, 540), h.getVersions(2).getRowsPerLabelMap());
    assertTrue(h.getVersions(0).getTimeMillis() <= h.getVersions(3).getTimeMillis());
    String text = DataTableHistory.render(h);
    assertTrue(text.contains("overwrite"), text);
    assertTrue(text.contains(v2.getSourceChecksum().substring(0, 16)), text);
    System.out.println(text);
  }

  @Test
  void anAppendOfAnotherShapeIsRefusedAndWritesNothing() throws Exception {
    IngestActivitiesImpl etl = new IngestActivitiesImpl();
    etl.ingest(request(csv("a.csv", 0, 100), "append", table));
    List<String> lines = new ArrayList<>(List.of("x,label"));
    for (int i = 0; i < 10; i++) {
      lines.add(RealData.features(i)[0] + "," + RealData.className(RealData.label(i)));
    }
    Path narrow = root.resolve("narrow.csv");
    Files.write(narrow, lines);
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> etl.ingest(request(narrow, "append", table)));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.INVALID_TABLE, f.getType());
    assertTrue(
        f.getOriginalMessage()
            .startsWith("cannot append to table " + table + ": its feature columns are [f0,"),
        f.getOriginalMessage());
    assertEquals(0, DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).getAsLong());
    // overwrite may change the columns: a new version with the new feature names
    IngestResult r = etl.ingest(request(narrow, "overwrite", table));
    assertEquals(1, r.getTable().getVersion());
    assertEquals("x", TableRows.properties(table, 1).get(TableSchemas.FEATURE_NAMES_PROPERTY));
  }

  @Test
  void anImageAppendWithFewerClassesUsesTheTablesClassNumbers() throws Exception {
    Path all = root.resolve("all");
    for (int i = 0; i < 40; i++) {
      RealData.write(i, all.resolve(RealData.className(RealData.label(i)) + "/" + i + ".png"));
    }
    Path sneakers = root.resolve("sneakers");
    int sneaker = IngestActivitiesImpl.FASHION_MNIST_CLASSES.indexOf("Sneaker");
    int n = 0;
    for (int i = 40; i < 400 && n < 5; i++) {
      if (RealData.label(i) == sneaker) {
        RealData.write(i, sneakers.resolve("Sneaker/" + i + ".png"));
        n++;
      }
    }
    IngestActivitiesImpl etl = new IngestActivitiesImpl();
    etl.ingest(
        IngestRequest.newBuilder()
            .setSource(
                DataSource.newBuilder()
                    .setFormat(DataSource.Format.image_folder)
                    .setUri(all.toString()))
            .setTableUri(table)
            .build());
    IngestResult r =
        etl.ingest(
            IngestRequest.newBuilder()
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(DataSource.Format.image_folder)
                        .setUri(sneakers.toString()))
                .setTableUri(table)
                .build());
    assertEquals(Map.of("Sneaker", 5L), r.getRowsPerLabelMap());
    List<String> classes =
        List.of(TableRows.properties(table, 1).get(TableSchemas.CLASS_NAMES_PROPERTY).split(","));
    List<TableRows.Row> rows = TableRows.read(table, 1);
    assertEquals(45, rows.size());
    rows.subList(40, 45).forEach(row -> assertEquals(classes.indexOf("Sneaker"), row.label()));
  }
}
