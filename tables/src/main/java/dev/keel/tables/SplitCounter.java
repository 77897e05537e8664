package dev.keel.tables;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Counts the rows of a snapshot per value of its {@code split} column, reading only that column
 * (deletion vectors applied). A table without a {@code split} column counts all its rows under
 * {@value #ALL}.
 */
public final class SplitCounter {
  /** Column holding the split name ({@link TableSchemas#LABELED_IMAGES}). */
  public static final String SPLIT = "split";

  /** Key of the total of a table without a split column. */
  public static final String ALL = "all";

  private SplitCounter() {}

  /** Split name to row count, in name order; NULL splits count under the empty name. */
  public static Map<String, Long> count(Engine engine, Snapshot snapshot) {
    StructType schema = snapshot.getSchema();
    return schema.indexOf(SPLIT) >= 0
        ? countBy(engine, snapshot, SPLIT)
        : countBy(engine, snapshot, null);
  }

  /**
   * Rows per value of {@code column} (a string or integer column, integers as decimal text), in
   * name order, reading only that column; NULLs count under the empty name. A null column counts
   * every row under {@value #ALL}.
   */
  public static Map<String, Long> countBy(Engine engine, Snapshot snapshot, String column) {
    StructType schema = snapshot.getSchema();
    boolean byValue = column != null;
    StructField field = byValue ? schema.get(column) : schema.at(0);
    Map<String, Long> counts = new TreeMap<>();
    scan(engine, snapshot, new StructType().add(field), batch -> add(counts, batch, byValue));
    return counts;
  }

  /**
   * Rows per value of {@code first}, then per value of {@code second} (string or integer columns,
   * integers as decimal text), in name order, reading only those two columns; NULLs count under the
   * empty name.
   */
  public static Map<String, Map<String, Long>> countBy(
      Engine engine, Snapshot snapshot, String first, String second) {
    StructType schema = snapshot.getSchema();
    Map<String, Map<String, Long>> counts = new TreeMap<>();
    scan(
        engine,
        snapshot,
        new StructType().add(schema.get(first)).add(schema.get(second)),
        fb -> {
          ColumnarBatch b = fb.getData();
          ColumnVector a = b.getColumnVector(0);
          ColumnVector c = b.getColumnVector(1);
          Optional<ColumnVector> sel = fb.getSelectionVector();
          for (int r = 0; r < b.getSize(); r++) {
            if (!KernelInternals.selected(sel, r)) {
              continue;
            }
            counts
                .computeIfAbsent(a.isNullAt(r) ? "" : text(a, r), k -> new TreeMap<>())
                .merge(c.isNullAt(r) ? "" : text(c, r), 1L, Long::sum);
          }
        });
    return counts;
  }

  /**
   * Hands every batch of {@code readSchema}'s columns of the snapshot's rows (deletion vectors
   * applied) to {@code sink}.
   */
  private static void scan(
      Engine engine,
      Snapshot snapshot,
      StructType readSchema,
      Consumer<FilteredColumnarBatch> sink) {
    Scan scan = snapshot.getScanBuilder().withReadSchema(readSchema).build();
    try {
      KernelInternals.forEachBatch(
          engine,
          scan,
          (path, batch) -> {
            sink.accept(batch);
            return true;
          });
    } catch (IOException e) {
      throw new UncheckedIOException("counting rows of version " + snapshot.getVersion(), e);
    }
  }

  private static void add(Map<String, Long> counts, FilteredColumnarBatch fb, boolean byValue) {
    ColumnarBatch b = fb.getData();
    ColumnVector split = b.getColumnVector(0);
    Optional<ColumnVector> sel = fb.getSelectionVector();
    String last = null;
    long run = 0;
    for (int r = 0; r < b.getSize(); r++) {
      if (!KernelInternals.selected(sel, r)) {
        continue;
      }
      String key = !byValue ? ALL : split.isNullAt(r) ? "" : text(split, r);
      if (!key.equals(last)) {
        if (last != null) {
          counts.merge(last, run, Long::sum);
        }
        last = key;
        run = 0;
      }
      run++;
    }
    if (last != null) {
      counts.merge(last, run, Long::sum);
    }
  }

  private static String text(ColumnVector v, int row) {
    return v.getDataType() instanceof IntegerType
        ? Integer.toString(v.getInt(row))
        : v.getDataType() instanceof LongType ? Long.toString(v.getLong(row)) : v.getString(row);
  }
}
