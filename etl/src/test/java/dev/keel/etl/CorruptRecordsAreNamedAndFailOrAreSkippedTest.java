package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.testing.ParquetFiles;
import dev.keel.etl.testing.RealData;
import dev.keel.tables.DeltaTables;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each kind of corrupt input, under on_bad_record fail (non-retryable, names file and record, no
 * version written) and skip (the other records are written, the corrupt ones counted).
 */
class CorruptRecordsAreNamedAndFailOrAreSkippedTest {
  Path root;
  String table;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "corrupt", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
    table = root.resolve("t").toString();
  }

  static IngestRequest request(DataSource.Builder source, String onBad, String table) {
    return IngestRequest.newBuilder()
        .setSource(
            source.setOnBadRecord(
                (onBad.isEmpty()
                    ? DataSource.OnBadRecord.ON_BAD_RECORD_UNSPECIFIED
                    : DataSource.OnBadRecord.valueOf(onBad))))
        .setTableUri(table)
        .build();
  }

  /** Fails with DATASET_CORRUPT, one line, naming {@code where}; and leaves the table as it was. */
  void assertFailsNaming(DataSource.Builder source, String where, String reason) {
    var before = DeltaTables.latestVersion(DeltaTables.defaultEngine(), table);
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () -> new IngestActivitiesImpl().ingest(request(source, "fail", table)));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.DATASET_CORRUPT, f.getType());
    assertTrue(
        f.getOriginalMessage().contains(reason == null ? where : where + ": " + reason),
        f.getOriginalMessage());
    assertFalse(f.getOriginalMessage().contains("\n"), f.getOriginalMessage());
    assertEquals(
        before, DeltaTables.latestVersion(DeltaTables.defaultEngine(), table), "no new version");
  }

  @Test
  void aTruncatedIdxFileFailsOrKeepsTheCompleteImages() throws Exception {
    Path dir = root.resolve("fashion");
    Files.createDirectories(dir);
    for (String f : IngestActivitiesImpl.FASHION_MNIST_FILES) {
      byte[] bytes = Files.readAllBytes(RealData.FASHION.resolve(f));
      // cut the test images' gzip stream at 60%: a download that stopped early
      Files.write(
          dir.resolve(f),
          f.startsWith("t10k-images") ? Arrays.copyOf(bytes, bytes.length * 6 / 10) : bytes);
    }
    DataSource.Builder src =
        DataSource.newBuilder().setFormat(DataSource.Format.fashion_mnist).setUri(dir.toString());
    assertFailsNaming(src, "t10k-images-idx3-ubyte.gz:record ", null);
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () -> new IngestActivitiesImpl().ingest(request(src, "fail", table)));
    assertTrue(
        f.getOriginalMessage().contains("truncated: the header says 10000 records"),
        f.getOriginalMessage());
    assertTrue(DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isEmpty());

    IngestResult r = new IngestActivitiesImpl().ingest(request(src, "skip", table));
    long test = r.getRowsPerSplitMap().get("test");
    assertEquals(60_000L, r.getRowsPerSplitMap().get("train"));
    assertTrue(test > 1000 && test < 10_000, "the complete images before the cut: " + test);
    assertEquals(10_000 - test, r.getSkippedRecords());
    assertEquals(
        r.getSkippedRecords(),
        DataTableHistory.describe(DeltaTables.defaultEngine(), table)
            .getVersions(0)
            .getSkippedRecords());
  }

  @Test
  void anUndecodableImageFailsOrIsSkipped() throws Exception {
    Path dir = root.resolve("images");
    for (int i = 0; i < 10; i++) {
      RealData.write(i, dir.resolve(RealData.className(RealData.label(i)) + "/" + i + ".png"));
    }
    String cls = RealData.className(RealData.label(0));
    Files.writeString(dir.resolve(cls + "/broken.png"), "this is not a PNG");
    byte[] png = Files.readAllBytes(dir.resolve(cls + "/0.png"));
    Files.write(dir.resolve(cls + "/cut.png"), Arrays.copyOf(png, png.length / 2));
    DataSource.Builder src =
        DataSource.newBuilder().setFormat(DataSource.Format.image_folder).setUri(dir.toString());
    assertFailsNaming(src, cls + "/broken.png", "undecodable image");
    assertTrue(DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isEmpty());

    IngestResult r = new IngestActivitiesImpl().ingest(request(src, "skip", table));
    assertEquals(10, r.getRows());
    assertEquals(2, r.getSkippedRecords());
    assertTrue(
        r.getSkippedExamples(0).startsWith(cls + "/broken.png: undecodable image"),
        r.getSkippedExamplesList().toString());
    assertTrue(
        r.getSkippedExamples(1).startsWith(cls + "/cut.png: undecodable image"),
        r.getSkippedExamplesList().toString());
  }

  /** A CSV of 20 real rows with one corrupt line (line 1 is the header, row i is line i + 2). */
  Path csvWith(int badRow, String badLine) throws Exception {
    List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
    for (int i = 0; i < 20; i++) {
      lines.add(i == badRow ? badLine : RealData.csvLine(i, i % 4 == 0 ? "test" : "train"));
    }
    Path p = root.resolve("bad-" + badRow + ".csv");
    Files.write(p, lines);
    return p;
  }

  void csvCase(Path csv, String where, String reason) {
    // an existing version first: the failed ingest must leave it the latest
    IngestActivitiesImpl etl = new IngestActivitiesImpl();
    DataSource.Builder good =
        DataSource.newBuilder().setFormat(DataSource.Format.csv).setLabelColumn("label");
    try {
      etl.ingest(
          request(
              good.clone().setUri(TabularCsv.write(root.resolve("good.csv"), 0, 40).toString()),
              "fail",
              table));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    DataSource.Builder src = good.clone().setUri(csv.toString());
    assertFailsNaming(src, where, reason);
    assertEquals(0, DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).getAsLong());
    IngestResult r = etl.ingest(request(src, "skip", table));
    assertEquals(1, r.getTable().getVersion());
    assertEquals(19, r.getRows());
    assertEquals(1, r.getSkippedRecords());
    assertTrue(r.getSkippedExamples(0).startsWith(where + ": " + reason), r.getSkippedExamples(0));
  }

  @Test
  void aCsvRowWithTheWrongColumnCountFailsOrIsSkipped() throws Exception {
    String line = RealData.csvLine(5, "train");
    csvCase(
        csvWith(5, line.substring(0, line.lastIndexOf(','))),
        csvName(5) + ":7",
        "18 columns, the header has 19");
  }

  @Test
  void aCsvRowWithAnEmptyLabelFailsOrIsSkipped() throws Exception {
    String line = RealData.csvLine(8, "train");
    String[] cells = line.split(",");
    cells[17] = "";
    csvCase(csvWith(8, String.join(",", cells)), csvName(8) + ":10", "missing label");
  }

  @Test
  void aNonNumericFeatureFailsOrIsSkipped() throws Exception {
    String[] cells = RealData.csvLine(11, "train").split(",");
    cells[4] = "n/a";
    csvCase(
        csvWith(11, String.join(",", cells)), csvName(11) + ":13", "feature 'f3': not a number");
  }

  static String csvName(int badRow) {
    return "bad-" + badRow + ".csv";
  }

  @Test
  void aParquetRowWithoutALabelFailsOrIsSkipped() throws Exception {
    Path file = root.resolve("pq/rows.parquet");
    ParquetFiles.write(file, 0, 30, i -> i % 3 == 0 ? "test" : "train", Set.of(7));
    DataSource.Builder src =
        DataSource.newBuilder()
            .setFormat(DataSource.Format.parquet)
            .setUri(file.toString())
            .setLabelColumn("label");
    assertFailsNaming(src, "rows.parquet:8", "missing label");
    IngestResult r = new IngestActivitiesImpl().ingest(request(src, "skip", table));
    assertEquals(29, r.getRows());
    assertEquals(Map.of("train", 19L, "test", 10L), r.getRowsPerSplitMap());
    assertEquals(1, r.getSkippedRecords());
  }

  /** Writes real rows as a CSV with a split column. */
  static final class TabularCsv {
    static Path write(Path p, int from, int to) throws Exception {
      List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
      for (int i = from; i < to; i++) {
        lines.add(RealData.csvLine(i, i % 4 == 0 ? "test" : "train"));
      }
      Files.write(p, lines);
      return p;
    }
  }
}
