package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.testing.ParquetFiles;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CSV and Parquet files of real Fashion-MNIST features ingested into labeled-features tables. */
class CsvAndParquetBecomeLabeledFeatureRowsTest {
  static final String FEATURES = "f0,f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f11,f12,f13,f14,f15";
  Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "tabular", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
  }

  static IngestRequest request(String format, DataSource.Builder source, String table) {
    return IngestRequest.newBuilder()
        .setSource(source.setFormat(DataSource.Format.valueOf(format)).setLabelColumn("label"))
        .setTableUri(table)
        .build();
  }

  /** Rows 0..n-1 in two CSV files; the split column says train for i % 5 != 0. */
  static Path csvDir(Path dir, int n) throws Exception {
    Files.createDirectories(dir);
    for (int part = 0; part < 2; part++) {
      List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
      for (int i = part * n / 2; i < (part + 1) * n / 2; i++) {
        lines.add(RealData.csvLine(i, i % 5 == 0 ? "test" : "train"));
      }
      Files.write(dir.resolve("part-" + part + ".csv"), lines);
    }
    return dir;
  }

  static void assertRealRows(String table, int n) throws Exception {
    List<String> classes =
        new ArrayList<>(
            new TreeSet<>(
                IntStream.range(0, n)
                    .mapToObj(i -> RealData.className(RealData.label(i)))
                    .toList()));
    Map<String, String> props = TableRows.properties(table, 0);
    assertEquals(
        FEATURES,
        props.get(TableSchemas.FEATURE_NAMES_PROPERTY),
        "numeric columns but label and split");
    assertEquals(String.join(",", classes), props.get(TableSchemas.CLASS_NAMES_PROPERTY));
    List<TableRows.Row> rows = TableRows.read(table, 0);
    assertEquals(n, rows.size());
    for (TableRows.Row r : rows) {
      int i = (int) r.id(); // files are read in name order, rows in file order
      assertEquals(i % 5 == 0 ? "test" : "train", r.split());
      assertEquals(classes.indexOf(RealData.className(RealData.label(i))), r.label());
      assertArrayEquals(RealData.features(i), r.features(), 1e-6f);
    }
  }

  static Map<String, Long> perClass(int n) {
    Map<String, Long> m = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      m.merge(RealData.className(RealData.label(i)), 1L, Long::sum);
    }
    return m;
  }

  @Test
  void aCsvDirectoryWithASplitColumnBecomesOneVersion() throws Exception {
    Path dir = csvDir(root.resolve("csv"), 200);
    String table = root.resolve("t").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(request("csv", DataSource.newBuilder().setUri(dir.toString()), table));
    assertEquals(0, r.getTable().getVersion());
    assertEquals(Map.of("train", 160L, "test", 40L), r.getRowsPerSplitMap());
    assertEquals(perClass(200), r.getRowsPerLabelMap());
    assertEquals(0, r.getSkippedRecords());
    assertRealRows(table, 200);
  }

  @Test
  void aParquetFileBecomesTheSameRows() throws Exception {
    Path file = root.resolve("pq/data.parquet");
    ParquetFiles.write(file, 0, 200, i -> i % 5 == 0 ? "test" : "train", Set.of());
    String table = root.resolve("t").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(
                request("parquet", DataSource.newBuilder().setUri(file.toUri().toString()), table));
    assertEquals(Map.of("train", 160L, "test", 40L), r.getRowsPerSplitMap());
    assertEquals(perClass(200), r.getRowsPerLabelMap());
    assertRealRows(table, 200);
  }

  @Test
  void integerLabelsZeroToKMinusOneKeepTheirValueAndFeatureColumnsCanBeChosen() throws Exception {
    List<String> lines = new ArrayList<>(List.of("a,b,digit"));
    for (int i = 0; i < 50; i++) {
      float[] f = RealData.features(i);
      lines.add(f[5] + "," + f[6] + "," + RealData.label(i));
    }
    Path csv = root.resolve("digits.csv");
    Files.write(csv, lines);
    String table = root.resolve("t").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(
                IngestRequest.newBuilder()
                    .setSource(
                        DataSource.newBuilder()
                            .setFormat(DataSource.Format.csv)
                            .setUri(csv.toString())
                            .setLabelColumn("digit")
                            .addFeatureColumns("b"))
                    .setTableUri(table)
                    .build());
    assertEquals(50, r.getRows());
    assertEquals("b", TableRows.properties(table, 0).get(TableSchemas.FEATURE_NAMES_PROPERTY));
    Set<Integer> distinct = new TreeSet<>();
    for (int i = 0; i < 50; i++) {
      distinct.add(RealData.label(i));
    }
    assertEquals(10, distinct.size(), "the first 50 test images cover all ten classes");
    assertEquals(
        "0,1,2,3,4,5,6,7,8,9",
        TableRows.properties(table, 0).get(TableSchemas.CLASS_NAMES_PROPERTY));
    for (TableRows.Row row : TableRows.read(table, 0)) {
      assertEquals(RealData.label((int) row.id()), row.label());
      assertArrayEquals(new float[] {RealData.features((int) row.id())[6]}, row.features(), 1e-6f);
    }
  }

  @Test
  void aLabelColumnThatIsNotInTheFileFailsWithoutRetriesAndWritesNothing() throws Exception {
    Path dir = csvDir(root.resolve("csv"), 20);
    String table = root.resolve("t").toString();
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(
                        IngestRequest.newBuilder()
                            .setSource(
                                DataSource.newBuilder()
                                    .setFormat(DataSource.Format.csv)
                                    .setUri(dir.toString())
                                    .setLabelColumn("category"))
                            .setTableUri(table)
                            .build()));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.INVALID_ARGUMENT, f.getType());
    assertEquals(
        "source.label_column 'category' is not a column of part-0.csv (its header row has "
            + (FEATURES.split(",").length + 3)
            + " columns)",
        f.getOriginalMessage());
    assertTrue(DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isEmpty());
  }
}
