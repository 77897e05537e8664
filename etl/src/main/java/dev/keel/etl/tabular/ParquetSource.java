package dev.keel.etl.tabular;

import dev.keel.activities.KeelFailure;
import dev.keel.api.config.Splits;
import dev.keel.etl.BadRecords;
import dev.keel.etl.HashSplit;
import dev.keel.etl.source.SourceFiles;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * Parquet files, read with the parquet-hadoop that Delta Kernel already brings (no Hadoop file
 * system: {@link LocalInputFile}). Default feature columns: every top-level INT32, INT64, FLOAT or
 * DOUBLE column but the label and {@code split}. Records are named {@code file:row} (from 1). Text
 * in BINARY columns is decoded in {@code source.encoding} (Parquet's own is UTF-8, the default): a
 * value that is not text in it makes its row a corrupt record instead of a label with U+FFFD in it.
 */
public final class ParquetSource {
  private ParquetSource() {}

  /** The top-level column names (cheap: reads the footer only). */
  public static List<String> columns(Path file) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      return r.getFooter().getFileMetaData().getSchema().getFields().stream()
          .map(Type::getName)
          .toList();
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
    Text text = new Text(charset, encoding);
    TabularRows rows = new TabularRows();
    for (SourceFiles.Entry f : files) {
      MessageType schema;
      try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f.path()))) {
        schema = r.getFooter().getFileMetaData().getSchema();
        List<String> columns = schema.getFields().stream().map(Type::getName).toList();
        TabularRows.requireColumns(f.relative(), columns, labelColumns, featureColumns);
        List<String> names =
            featureColumns.isEmpty() ? numericColumns(schema, labelColumns) : featureColumns;
        if (names.isEmpty()) {
          bad.report(f.relative(), "no numeric feature column besides " + labelColumns.describe());
          continue;
        }
        rows.featureNames(names, f.relative());
        int[] label = labelColumns.names().stream().mapToInt(schema::getFieldIndex).toArray();
        int split =
            !labelColumns.contains(TabularRows.SPLIT_COLUMN)
                    && schema.containsField(TabularRows.SPLIT_COLUMN)
                ? schema.getFieldIndex(TabularRows.SPLIT_COLUMN)
                : -1;
        int[] cols = names.stream().mapToInt(schema::getFieldIndex).toArray();
        MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
        long row = 0;
        String[] why = new String[1];
        for (PageReadStore pages; (pages = r.readNextRowGroup()) != null; ) {
          RecordReader<Group> rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
          for (long i = 0; i < pages.getRowCount(); i++) {
            Group g = rr.read();
            String where = f.relative() + ":" + (++row);
            try {
              readRow(
                  g, where, label, split, cols, names, labelColumns, text, hash, bad, rows, why);
            } catch (NotText e) {
              bad.report(where, e.getMessage());
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        if (e instanceof KeelFailure a) {
          throw a;
        }
        bad.report(f.relative(), "unreadable Parquet file (" + e.getMessage() + ")");
      }
    }
    return rows;
  }

  /** One row: a good record goes to {@code rows}, a corrupt one to {@code bad}. */
  private static void readRow(
      Group g,
      String where,
      int[] label,
      int split,
      int[] cols,
      List<String> names,
      LabelColumns labelColumns,
      Text text,
      HashSplit hash,
      BadRecords bad,
      TabularRows rows,
      String[] why) {
    String[] lab = new String[label.length];
    for (int k = 0; k < label.length; k++) {
      lab[k] = text.of(g, label[k]);
      if (lab[k] == null || lab[k].isBlank()) {
        bad.report(
            where, "missing label (column '" + labelColumns.names().get(k) + "' is null or empty)");
        return;
      }
      lab[k] = lab[k].strip();
    }
    String s = split < 0 ? null : text.of(g, split);
    if (split >= 0 && !Splits.known(s)) {
      bad.report(where, "the split column is neither train nor test");
      return;
    }
    float[] v = new float[cols.length];
    for (int c = 0; c < cols.length; c++) {
      Float x = TabularRows.number(text.of(g, cols[c]), why);
      if (x == null) {
        bad.report(where, "feature '" + names.get(c) + "': " + why[0]);
        return;
      }
      v[c] = x;
    }
    rows.add(lab, TabularRows.split(s, hash, where), v, where);
  }

  private static List<String> numericColumns(MessageType schema, LabelColumns labelColumns) {
    List<String> out = new ArrayList<>();
    for (Type t : schema.getFields()) {
      if (t.isPrimitive()
          && !labelColumns.contains(t.getName())
          && !t.getName().equals(TabularRows.SPLIT_COLUMN)
          && numeric(t.asPrimitiveType().getPrimitiveTypeName())) {
        out.add(t.getName());
      }
    }
    return out;
  }

  private static boolean numeric(PrimitiveTypeName t) {
    return t == PrimitiveTypeName.INT32
        || t == PrimitiveTypeName.INT64
        || t == PrimitiveTypeName.FLOAT
        || t == PrimitiveTypeName.DOUBLE;
  }

  /** A BINARY value that is not text in the source's encoding. */
  private static final class NotText extends RuntimeException {
    NotText(String message) {
      super(message, null, false, false);
    }
  }

  /** Fields as text, BINARY ones decoded in the source's encoding. */
  private record Text(Charset charset, String encoding) {
    /**
     * A field as text (null when absent); integral doubles print without ".0" so that 1.0 and 1 are
     * one label.
     *
     * @throws NotText naming the column when a BINARY value is not text in the encoding
     */
    String of(Group g, int field) {
      if (g.getFieldRepetitionCount(field) == 0) {
        return null;
      }
      Type t = g.getType().getType(field);
      if (!t.isPrimitive()) {
        return g.getValueToString(field, 0);
      }
      return switch (t.asPrimitiveType().getPrimitiveTypeName()) {
        case INT32 -> Integer.toString(g.getInteger(field, 0));
        case INT64 -> Long.toString(g.getLong(field, 0));
        case FLOAT -> plain(g.getFloat(field, 0));
        case DOUBLE -> plain(g.getDouble(field, 0));
        case BOOLEAN -> Boolean.toString(g.getBoolean(field, 0));
        case BINARY, FIXED_LEN_BYTE_ARRAY -> {
          String[] why = new String[1];
          yield SourceText.decode(g.getBinary(field, 0).getBytes(), charset, encoding, why)
              .orElseThrow(() -> new NotText("column '" + t.getName() + "': " + why[0]));
        }
        default -> g.getValueToString(field, 0);
      };
    }
  }

  private static String plain(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
