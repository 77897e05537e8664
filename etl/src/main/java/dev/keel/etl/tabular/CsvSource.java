package dev.keel.etl.tabular;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.config.Splits;
import dev.keel.etl.BadRecords;
import dev.keel.etl.HashSplit;
import dev.keel.etl.source.SourceFiles;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * CSV files with a header line (RFC 4180 quoting), in {@code source.encoding} (default UTF-8, a
 * byte order mark dropped). Default feature columns: every column but the label and {@code split}
 * whose value in the first data record is a number; a later record with a non-number there is a
 * corrupt record. Records are named {@code file:line}. Text is decoded record by record ({@link
 * SourceText}): bytes that are not text in the encoding make their own record corrupt, and only it;
 * in the header they fail the file.
 */
public final class CsvSource {
  static final CSVFormat FORMAT =
      CSVFormat.DEFAULT
          .builder()
          .setHeader()
          .setSkipHeaderRecord(true)
          .setIgnoreSurroundingSpaces(true)
          .setIgnoreEmptyLines(true)
          .setAllowMissingColumnNames(true)
          .get();

  private CsvSource() {}

  /** The header of a CSV file (cheap: reads the first record only). */
  public static List<String> header(Path file, Charset charset) throws IOException {
    try (Reader r = SourceText.open(file, charset, "");
        CSVParser p = CSVParser.parse(r, FORMAT)) {
      return p.getHeaderNames();
    }
  }

  /**
   * @param charset the resolved {@code source.encoding}
   * @param encoding {@code source.encoding} as written (empty: the default), for messages
   */
  public static TabularRows read(
      List<SourceFiles.Entry> files,
      LabelColumns labelColumns,
      List<String> featureColumns,
      Charset charset,
      String encoding,
      HashSplit hash,
      BadRecords bad) {
    TabularRows rows = new TabularRows();
    for (SourceFiles.Entry f : files) {
      try {
        readFile(f, labelColumns, featureColumns, charset, encoding, hash, bad, rows);
      } catch (IOException | UncheckedIOException e) {
        bad.report(f.relative(), "unreadable CSV (" + e.getMessage() + ")");
      }
    }
    return rows;
  }

  private static void readFile(
      SourceFiles.Entry f,
      LabelColumns labelColumns,
      List<String> featureColumns,
      Charset charset,
      String encoding,
      HashSplit hash,
      BadRecords bad,
      TabularRows rows)
      throws IOException {
    try (SourceText r = SourceText.open(f.path(), charset, encoding);
        CSVParser p = CSVParser.parse(r, FORMAT)) {
      Optional<SourceText.Flaw> inHeader = r.flawThrough(Math.max(1, p.getCurrentLineNumber()));
      if (inHeader.isPresent()) {
        // no record can be read without the column names
        throw KeelFailure.nonRetryable(
            f.relative()
                + ":"
                + inHeader.get().line()
                + ": the header line: "
                + inHeader.get().what(),
            FailureTypes.DATASET_CORRUPT);
      }
      List<String> header = p.getHeaderNames();
      if (header.isEmpty()) {
        throw KeelFailure.nonRetryable(
            f.relative() + ": empty CSV file (no header line)", FailureTypes.DATASET_CORRUPT);
      }
      TabularRows.requireColumns(f.relative(), header, labelColumns, featureColumns);
      int[] label = labelColumns.names().stream().mapToInt(header::indexOf).toArray();
      int split =
          labelColumns.contains(TabularRows.SPLIT_COLUMN)
              ? -1
              : header.indexOf(TabularRows.SPLIT_COLUMN);
      List<String> names = featureColumns;
      int[] cols = null;
      String[] why = new String[1];
      for (CSVRecord rec : p) {
        String where = f.relative() + ":" + p.getCurrentLineNumber();
        Optional<SourceText.Flaw> flaw = r.flawThrough(p.getCurrentLineNumber());
        if (flaw.isPresent()) {
          bad.report(f.relative() + ":" + flaw.get().line(), flaw.get().what());
          continue;
        }
        if (rec.size() != header.size()) {
          bad.report(where, rec.size() + " columns, the header has " + header.size());
          continue;
        }
        if (cols == null) {
          if (names.isEmpty()) {
            names = new ArrayList<>();
            for (int c = 0; c < header.size(); c++) {
              if (!labelColumns.contains(header.get(c))
                  && c != split
                  && TabularRows.number(rec.get(c), why) != null) {
                names.add(header.get(c));
              }
            }
            if (names.isEmpty()) {
              throw KeelFailure.nonRetryable(
                  f.relative()
                      + ": no numeric feature column besides "
                      + labelColumns.describe()
                      + " (set source.feature_columns)",
                  FailureTypes.DATASET_CORRUPT);
            }
          }
          rows.featureNames(names, f.relative());
          cols = names.stream().mapToInt(header::indexOf).toArray();
        }
        String[] lab = new String[label.length];
        for (int k = 0; k < label.length && lab != null; k++) {
          String text = rec.get(label[k]);
          if (text == null || text.isBlank()) {
            bad.report(
                where, "missing label (column '" + labelColumns.names().get(k) + "' is empty)");
            lab = null;
          } else {
            lab[k] = text.strip();
          }
        }
        if (lab == null) {
          continue;
        }
        String s = split < 0 ? null : rec.get(split).strip();
        if (s != null && !Splits.known(s)) {
          bad.report(where, "the split column is neither train nor test");
          continue;
        }
        float[] v = new float[cols.length];
        boolean ok = true;
        for (int i = 0; i < cols.length && ok; i++) {
          Float x = TabularRows.number(rec.get(cols[i]), why);
          if (x == null) {
            bad.report(where, "feature '" + header.get(cols[i]) + "': " + why[0]);
            ok = false;
          } else {
            v[i] = x;
          }
        }
        if (ok) {
          rows.add(lab, TabularRows.split(s, hash, where), v, where);
        }
      }
    } catch (IllegalStateException | IllegalArgumentException e) {
      // commons-csv: an unterminated quote or a malformed header
      bad.report(f.relative(), "malformed CSV (" + e.getMessage() + ")");
    }
  }
}
