package dev.keel.tables;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
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
 * value: strings, longs, ints, doubles and timestamps as {@link Instant}; NULL as {@code null}.
 * Data tables are read column-wise by {@link DeltaDatasetReader} instead.
 */
public final class TableRows {
  private TableRows() {}

  public static List<Map<String, Object>> read(Engine engine, Snapshot snapshot) {
    Scan scan = snapshot.getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
    List<Map<String, Object>> out = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> rows = files.next().getRows()) {
          while (rows.hasNext()) {
            readFile(engine, scanState, physical, rows.next(), out);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static void readFile(
      Engine engine,
      Row scanState,
      StructType physical,
      Row scanFile,
      List<Map<String, Object>> out)
      throws IOException {
    CloseableIterator<ColumnarBatch> data =
        engine
            .getParquetHandler()
            .readParquetFiles(
                Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(scanFile)),
                physical,
                Optional.empty())
            .map(FileReadResult::getData);
    try (CloseableIterator<FilteredColumnarBatch> logical =
        Scan.transformPhysicalData(engine, scanState, scanFile, data)) {
      while (logical.hasNext()) {
        FilteredColumnarBatch filtered = logical.next();
        ColumnarBatch b = filtered.getData();
        Optional<ColumnVector> selected = filtered.getSelectionVector();
        for (int r = 0; r < b.getSize(); r++) {
          if (selected.isPresent()
              && (selected.get().isNullAt(r) || !selected.get().getBoolean(r))) {
            continue;
          }
          Map<String, Object> row = new LinkedHashMap<>();
          for (int c = 0; c < b.getSchema().length(); c++) {
            row.put(b.getSchema().at(c).getName(), value(b.getColumnVector(c), r));
          }
          out.add(row);
        }
      }
    }
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
    if (t instanceof StringType) {
      return v.getString(r);
    }
    if (t instanceof BooleanType) {
      return v.getBoolean(r);
    }
    throw new IllegalArgumentException("column type " + t + " is not read by TableRows");
  }
}
