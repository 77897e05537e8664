package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.testing.ParquetFiles;
import dev.keel.etl.testing.RealData;
import dev.keel.etl.testing.TableRows;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CSV text (and Parquet BINARY labels) in {@code source.encoding}: a byte that is not text in it
 * makes its own line a corrupt record, named by file and line with the word encoding, and {@code
 * on_bad_record: skip} skips exactly that line (it used to lose every row after the read buffer
 * that held the byte). A UTF-8 byte order mark is not part of the first column's name; a UTF-16
 * file without {@code encoding} fails at line 1 in both modes; with the encoding named, every row
 * is read with its characters. The submission-time check says the same before anything runs.
 */
class SourceTextIsDecodedRecordByRecordInItsEncodingTest {
  /**
   * A file of this many rows whose only non-UTF-8 byte is in row BAD_ROW, line BAD_ROW + 2 (line 1
   * is the header).
   */
  static final int ROWS = 600;

  static final int BAD_ROW = 498;
  static final int BAD_LINE = BAD_ROW + 2;

  Path root;
  String table;

  @BeforeEach
  void setUp() throws Exception {
    root =
        Files.createDirectories(
            Path.of("target", "encoding", UUID.randomUUID().toString()).toAbsolutePath());
    table = root.resolve("t").toString();
  }

  static IngestRequest request(
      String file, String format, String onBad, String encoding, String table) {
    return IngestRequest.newBuilder()
        .setTableUri(table)
        .setSource(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.valueOf(format))
                .setUri(file)
                .setLabelColumn("label")
                .setOnBadRecord(
                    (onBad.isEmpty()
                        ? DataSource.OnBadRecord.ON_BAD_RECORD_UNSPECIFIED
                        : DataSource.OnBadRecord.valueOf(onBad)))
                .setEncoding(encoding))
        .build();
  }

  /**
   * Real rows as CSV lines: header, then name, f0..f15, label, split; {@code name} and {@code
   * label} may be replaced.
   */
  static List<String> lines(int rows, IntFunction<String> name, IntFunction<String> label) {
    List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
    for (int i = 0; i < rows; i++) {
      String[] cells = RealData.csvLine(i, i % 4 == 0 ? "test" : "train").split(",");
      cells[0] = name.apply(i);
      cells[17] = label.apply(i);
      lines.add(String.join(",", cells));
    }
    return lines;
  }

  static Path write(Path file, List<String> lines, Charset charset, byte... prefix)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(prefix);
    out.write((String.join("\n", lines) + "\n").getBytes(charset));
    Files.write(file, out.toByteArray());
    return file;
  }

  /** Latin-1, every byte ASCII but the é in row BAD_ROW's name. */
  Path lateBadByte() throws Exception {
    return write(
        root.resolve("latin1.csv"),
        lines(
            ROWS,
            i -> i == BAD_ROW ? "café-" + i : "img-" + i,
            i -> RealData.className(RealData.label(i))),
        StandardCharsets.ISO_8859_1);
  }

  static String notUtf8(String where, String bytes, String example) {
    return where
        + ": not valid UTF-8 ("
        + bytes
        + "); set source.encoding to the file's encoding, e.g. "
        + example;
  }

  @Test
  void aLatin1CsvWithOneLateBadByteSkipsExactlyItsLineOrFailsNamingFileLineAndEncoding()
      throws Exception {
    Path csv = lateBadByte();
    String where = notUtf8("latin1.csv:" + BAD_LINE, "byte 0xE9", "latin-1");

    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(csv.toString(), "csv", "fail", "", table)));
    assertEquals(FailureTypes.DATASET_CORRUPT, f.getType());
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains(where), f.getOriginalMessage());
    assertFalse(f.getOriginalMessage().contains("\n"), f.getOriginalMessage());
    assertTrue(
        DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isEmpty(), "nothing written");

    IngestResult r =
        new IngestActivitiesImpl().ingest(request(csv.toString(), "csv", "skip", "", table));
    assertEquals(ROWS - 1, r.getRows(), "every row but the bad one, those after it too");
    assertEquals(1, r.getSkippedRecords());
    assertEquals(List.of(where), r.getSkippedExamplesList());
    List<TableRows.Row> rows = TableRows.read(table, 0);
    assertEquals(ROWS - 1, rows.size());
    for (TableRows.Row row : rows) {
      int i =
          row.id() < BAD_ROW
              ? (int) row.id()
              : (int) row.id() + 1; // ids are the kept rows in order
      assertArrayEquals(RealData.features(i), row.features(), 1e-6f, "row " + i);
      assertEquals(i % 4 == 0 ? "test" : "train", row.split());
    }
    assertEquals(
        1,
        DataTableHistory.describe(DeltaTables.defaultEngine(), table)
            .getVersions(0)
            .getSkippedRecords());
  }

  @Test
  void encodingLatin1ReadsEveryRowWithItsAccentedClassNames() throws Exception {
    IntFunction<String> french =
        i ->
            switch (RealData.className(RealData.label(i))) {
              case "Sandal" -> "Sandale_d'été";
              case "Coat" -> "Manteau_léger";
              default -> RealData.className(RealData.label(i));
            };
    Path csv =
        write(
            root.resolve("fr.csv"),
            lines(200, i -> "img-" + i, french),
            StandardCharsets.ISO_8859_1);
    int firstAccent = 0;
    while (!french.apply(firstAccent).matches(".*[éè].*")) {
      firstAccent++;
    }
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(csv.toString(), "csv", "fail", "", table)));
    assertTrue(
        f.getOriginalMessage()
            .contains(notUtf8("fr.csv:" + (firstAccent + 2), "byte 0xE9", "latin-1")),
        f.getOriginalMessage());

    IngestResult r =
        new IngestActivitiesImpl().ingest(request(csv.toString(), "csv", "fail", "latin-1", table));
    assertEquals(200, r.getRows());
    assertEquals(0, r.getSkippedRecords());
    assertTrue(
        r.getRowsPerLabelMap().containsKey("Sandale_d'été"), r.getRowsPerLabelMap().toString());
    assertTrue(
        r.getRowsPerLabelMap().containsKey("Manteau_léger"), r.getRowsPerLabelMap().toString());
    String classes = TableRows.properties(table, 0).get(TableSchemas.CLASS_NAMES_PROPERTY);
    assertTrue(List.of(classes.split(",")).contains("Sandale_d'été"), classes);
  }

  @Test
  void aUtf8ByteOrderMarkIsNotPartOfTheFirstColumnsName() throws Exception {
    // the label is the first column, as in many exported spreadsheets
    List<String> lines =
        new ArrayList<>(
            List.of(
                "label,split,"
                    + RealData.csvHeader(false).substring("name,".length()).replace(",label", "")));
    for (int i = 0; i < 40; i++) {
      StringBuilder sb =
          new StringBuilder(RealData.className(RealData.label(i)))
              .append(i % 4 == 0 ? ",test" : ",train");
      for (float x : RealData.features(i)) {
        sb.append(',').append(x);
      }
      lines.add(sb.toString());
    }
    Path csv =
        write(
            root.resolve("bom.csv"),
            lines,
            StandardCharsets.UTF_8,
            (byte) 0xEF,
            (byte) 0xBB,
            (byte) 0xBF);
    DataSource source = request(csv.toString(), "csv", "fail", "", table).getSource();
    assertEquals(List.of(), SourceCheck.problems(source));
    IngestResult r =
        new IngestActivitiesImpl().ingest(request(csv.toString(), "csv", "fail", "", table));
    assertEquals(40, r.getRows());
    assertEquals(Map.of("train", 30L, "test", 10L), r.getRowsPerSplitMap());
    assertTrue(
        TableRows.properties(table, 0).get(TableSchemas.FEATURE_NAMES_PROPERTY).startsWith("f0,"));
  }

  @Test
  void aUtf16CsvWithoutEncodingFailsAtLineOneInBothModesAndIsReadWithIt() throws Exception {
    List<String> lines = lines(100, i -> "img-" + i, i -> RealData.className(RealData.label(i)));
    Path bom =
        write(root.resolve("utf16.csv"), lines, StandardCharsets.UTF_16); // big-endian with a BOM
    Path le = write(root.resolve("utf16le.csv"), lines, StandardCharsets.UTF_16LE); // no BOM
    String bomProblem =
        "utf16.csv:1: the header line: not valid UTF-8 (bytes 0xFE 0xFF, a UTF-16 byte order mark); "
            + "set source.encoding to the file's encoding, e.g. utf-16";
    String leProblem =
        "utf16le.csv:1: the header line: a NUL character, as in UTF-16 text read as UTF-8; "
            + "set source.encoding to the file's encoding, e.g. utf-16le";
    for (String mode : List.of("fail", "skip")) {
      for (Map.Entry<Path, String> c : Map.of(bom, bomProblem, le, leProblem).entrySet()) {
        ApplicationFailure f =
            assertThrows(
                ApplicationFailure.class,
                () ->
                    new IngestActivitiesImpl()
                        .ingest(request(c.getKey().toString(), "csv", mode, "", table)));
        assertEquals(FailureTypes.DATASET_CORRUPT, f.getType());
        assertEquals(c.getValue(), f.getOriginalMessage(), mode);
      }
    }
    assertTrue(DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isEmpty());

    assertEquals(
        100,
        new IngestActivitiesImpl()
            .ingest(request(bom.toString(), "csv", "fail", "utf-16", table))
            .getRows());
    assertEquals(
        100,
        new IngestActivitiesImpl()
            .ingest(request(le.toString(), "csv", "fail", "UTF-16LE", table + "le"))
            .getRows());
    assertEquals(
        TableRows.read(table, 0).stream().map(TableRows.Row::label).toList(),
        TableRows.read(table + "le", 0).stream().map(TableRows.Row::label).toList(),
        "the same rows");
  }

  @Test
  void aParquetLabelThatIsNotUtf8IsACorruptRecordOfItsRow() throws Exception {
    Path file = root.resolve("pq/rows.parquet");
    ParquetFiles.write(
        file,
        0,
        30,
        i -> i % 3 == 0 ? "test" : "train",
        i ->
            (RealData.className(RealData.label(i)) + (i == 7 ? "é" : ""))
                .getBytes(StandardCharsets.ISO_8859_1));
    String where =
        "rows.parquet:8: column 'label': not valid UTF-8 (byte 0xE9); "
            + "set source.encoding to the file's encoding, e.g. latin-1";
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(file.toString(), "parquet", "fail", "", table)));
    assertTrue(f.getOriginalMessage().contains(where), f.getOriginalMessage());
    IngestResult r =
        new IngestActivitiesImpl().ingest(request(file.toString(), "parquet", "skip", "", table));
    assertEquals(29, r.getRows());
    assertEquals(List.of(where), r.getSkippedExamplesList());
    assertFalse(
        r.getRowsPerLabelMap().keySet().stream().anyMatch(l -> l.contains("\uFFFD")),
        r.getRowsPerLabelMap().toString());
  }

  @Test
  void submissionNamesTheEncodingTheFileAndTheLine() throws Exception {
    Path latin1 = lateBadByte();
    write(root.resolve("utf16.csv"), lines(10, i -> "img-" + i, i -> "x"), StandardCharsets.UTF_16);
    assertEquals(
        List.of(
            new ConfigProblem(
                "source.encoding", notUtf8("latin1.csv:" + BAD_LINE, "byte 0xE9", "latin-1"))),
        SourceCheck.problems(request(latin1.toString(), "csv", "", "", table).getSource()));
    // a directory source names the file as the ingest does, relative to it
    assertEquals(
        List.of(
            new ConfigProblem(
                "source.encoding",
                "utf16.csv:1: not valid UTF-8 (bytes 0xFE 0xFF, a UTF-16 "
                    + "byte order mark); set source.encoding to the file's encoding, e.g. utf-16")),
        SourceCheck.problems(request(root.toString(), "csv", "skip", "", table).getSource()));
    assertEquals(
        List.of(),
        SourceCheck.problems(
            request(latin1.toString(), "csv", "fail", "latin-1", table).getSource()));
    // under skip the ingest skips the line, naming it; only a header it cannot read is refused up
    // front
    assertEquals(
        List.of(),
        SourceCheck.problems(request(latin1.toString(), "csv", "skip", "", table).getSource()));
    assertEquals(
        List.of(
            new ConfigProblem(
                "source.encoding",
                "unknown encoding 'klingon' (e.g. utf-8, latin-1, " + "windows-1252, utf-16)")),
        SourceCheck.problems(
            request(latin1.toString(), "csv", "fail", "klingon", table).getSource()));
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(latin1.toString(), "csv", "fail", "klingon", table)));
    assertEquals(FailureTypes.INVALID_ARGUMENT, f.getType());
    assertTrue(
        f.getOriginalMessage().startsWith("source.encoding: unknown encoding 'klingon'"),
        f.getOriginalMessage());
  }
}
