package dev.keel.tables;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every row of one version of a small Delta table (the {@code _keel} tables), as column name to
 * value: strings, longs, ints, floats, doubles, booleans and timestamps as {@link Instant}; NULL as
 * {@code null}. Data tables are read column-wise by {@link DeltaDatasetReader} instead.
 *
 * <p>The {@code _keel} tables evolve by adding nullable columns, so a release meets tables written
 * by older and newer ones: a column an older release did not write is absent from the row (read as
 * null), and a column of a type this release does not read (a later release's array, say) is left
 * unread rather than failing the whole table.
 */
public final class TableRows {
  private TableRows() {}

  public static List<Map<String, Object>> read(Engine engine, Snapshot snapshot) {
    List<Map<String, Object>> out = new ArrayList<>();
    try {
      KernelInternals.forEachBatch(
          engine,
          snapshot.getScanBuilder().withReadSchema(readable(snapshot.getSchema())).build(),
          (path, filtered) -> {
            ColumnarBatch b = filtered.getData();
            Optional<ColumnVector> selected = filtered.getSelectionVector();
            for (int r = 0; r < b.getSize(); r++) {
              if (!KernelInternals.selected(selected, r)) {
                continue;
              }
              Map<String, Object> row = new LinkedHashMap<>();
              for (int c = 0; c < b.getSchema().length(); c++) {
                row.put(b.getSchema().at(c).getName(), value(b.getColumnVector(c), r));
              }
              out.add(row);
            }
            return true;
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The columns of {@code schema} whose type {@link #value} reads, in order. */
  private static StructType readable(StructType schema) {
    StructType out = new StructType();
    for (StructField f : schema.fields()) {
      DataType t = f.getDataType();
      if (t instanceof TimestampType
          || t instanceof LongType
          || t instanceof IntegerType
          || t instanceof FloatType
          || t instanceof DoubleType
          || t instanceof StringType
          || t instanceof BooleanType) {
        out = out.add(f);
      }
    }
    return out;
  }

  private static Object value(ColumnVector v, int r) {
    if (v.isNullAt(r)) {
      return null;
    }
    DataType t = v.getDataType();
    if (t instanceof TimestampType) {
      long micros = v.getLong(r);
      return Instant.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }
    if (t instanceof LongType) {
      return v.getLong(r);
    }
    if (t instanceof IntegerType) {
      return v.getInt(r);
    }
    if (t instanceof DoubleType) {
      return v.getDouble(r);
    }
    if (t instanceof FloatType) {
      return v.getFloat(r);
    }
    if (t instanceof StringType) {
      return v.getString(r);
    }
    if (t instanceof BooleanType) {
      return v.getBoolean(r);
    }
    throw new IllegalArgumentException("column type " + t + " is not read by TableRows");
  }
}
