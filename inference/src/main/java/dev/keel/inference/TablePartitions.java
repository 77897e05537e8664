package dev.keel.inference;

import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.TableRef;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledImages;
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
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Partitions of one split of a labeled-images table version, and the rows of one partition. A
 * partition is a row range of one data file, rows counted among that file's rows of the split in
 * file order (deletion vectors applied), so plan and read agree without sharing anything but the
 * file's path and the range.
 */
final class TablePartitions {
  private static final StructType SPLIT_ONLY = new StructType().add("split", StringType.STRING);
  private static final StructType ROWS =
      new StructType()
          .add("id", LongType.LONG)
          .add("label", IntegerType.INTEGER)
          .add("split", StringType.STRING)
          .add("image", BinaryType.BINARY);

  private TablePartitions() {}

  /** The plan and the number of rows it covers. */
  record Plan(List<InferencePartition> partitions, long rows) {}

  /**
   * @throws IllegalArgumentException naming the table, version and split when the version does
   *     not exist, holds no rows, or holds no rows of {@code split}
   */
  static Plan plan(Engine engine, TableRef table, String split, long maxRows) {
    Snapshot snapshot = DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion());
    requireColumns(snapshot, table);
    String name = DeltaTables.displayUri(table.getUri()) + " v" + table.getVersion();
    Map<String, long[]> perFile = new java.util.LinkedHashMap<>(); // path -> rows of the split
    Map<String, Long> splits = new TreeMap<>();
    forEachFile(engine, snapshot, SPLIT_ONLY, (path, batch) -> {
      long[] count = perFile.computeIfAbsent(path, p -> new long[1]);
      ColumnVector sp = batch.getData().getColumnVector(0);
      Optional<ColumnVector> sel = batch.getSelectionVector();
      for (int r = 0; r < batch.getData().getSize(); r++) {
        if (!selected(sel, r) || sp.isNullAt(r)) {
          continue;
        }
        String s = sp.getString(r);
        splits.merge(s, 1L, Long::sum);
        if (s.equals(split)) {
          count[0]++;
        }
      }
      return true;
    });
    if (splits.isEmpty()) {
      throw new IllegalArgumentException("table " + name + " holds no rows");
    }
    if (!splits.containsKey(split)) {
      throw new IllegalArgumentException("split '" + split + "' has no rows in table " + name
          + " (splits: " + String.join(", ", new TreeSet<>(splits.keySet())) + ")");
    }
    List<InferencePartition> partitions = new ArrayList<>();
    long total = 0;
    for (Map.Entry<String, long[]> f : perFile.entrySet()) {
      long n = f.getValue()[0];
      total += n;
      // equal ranges of at most maxRows rows each
      long pieces = (n + maxRows - 1) / maxRows;
      for (long k = 0; k < pieces; k++) {
        long from = n * k / pieces;
        long to = n * (k + 1) / pieces;
        partitions.add(InferencePartition.newBuilder().setIndex(partitions.size()).setFile(f.getKey())
            .setFirstRow(from).setRows(to - from).build());
      }
    }
    return new Plan(partitions, total);
  }

  /**
   * The rows of {@code partition}, in file order.
   *
   * @throws IllegalArgumentException when the version does not exist or the file is not part of it
   */
  static LabeledImages read(Engine engine, TableRef table, String split, InferencePartition partition) {
    Snapshot snapshot = DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion());
    requireColumns(snapshot, table);
    String shape = snapshot.getTableProperties().getOrDefault(TableSchemas.IMAGE_SHAPE_PROPERTY, "28x28");
    String[] hw = shape.split("x");
    int rows = Integer.parseInt(hw[0].strip());
    int cols = Integer.parseInt(hw[1].strip());
    int imageBytes = rows * cols;
    int n = Math.toIntExact(partition.getRows());
    long[] ids = new long[n];
    int[] labels = new int[n];
    byte[] pixels = new byte[Math.multiplyExact(n, imageBytes)];
    long first = partition.getFirstRow();
    long end = first + n;
    long[] ordinal = {0};
    int[] filled = {0};
    boolean[] found = {false};
    forEachFile(engine, snapshot, ROWS, partition.getFile(), (path, batch) -> {
      found[0] = true;
      ColumnarBatch b = batch.getData();
      ColumnVector id = b.getColumnVector(0);
      ColumnVector label = b.getColumnVector(1);
      ColumnVector sp = b.getColumnVector(2);
      ColumnVector image = b.getColumnVector(3);
      Optional<ColumnVector> sel = batch.getSelectionVector();
      for (int r = 0; r < b.getSize() && ordinal[0] < end; r++) {
        if (!selected(sel, r) || sp.isNullAt(r) || !split.equals(sp.getString(r))) {
          continue;
        }
        long o = ordinal[0]++;
        if (o < first) {
          continue;
        }
        byte[] img = image.getBinary(r);
        if (img == null || img.length != imageBytes) {
          throw new IllegalArgumentException("table " + DeltaTables.displayUri(table.getUri()) + " v"
              + table.getVersion() + ": image of id " + id.getLong(r) + " has "
              + (img == null ? "no" : img.length) + " bytes, expected " + imageBytes);
        }
        int i = filled[0]++;
        ids[i] = id.getLong(r);
        labels[i] = label.getInt(r);
        System.arraycopy(img, 0, pixels, i * imageBytes, imageBytes);
      }
      return ordinal[0] < end; // the rows after the range are not decoded
    });
    if (!found[0]) {
      throw new IllegalArgumentException("table " + DeltaTables.displayUri(table.getUri()) + " v"
          + table.getVersion() + " has no data file " + partition.getFile());
    }
    if (filled[0] != n) {
      throw new IllegalArgumentException("table " + DeltaTables.displayUri(table.getUri()) + " v"
          + table.getVersion() + ": file " + partition.getFile() + " holds " + filled[0] + " of the "
          + n + " planned rows from row " + first + " of split " + split);
    }
    return new LabeledImages(ids, labels, pixels, rows, cols);
  }

  private static void requireColumns(Snapshot snapshot, TableRef table) {
    for (String col : ROWS.fieldNames()) {
      if (snapshot.getSchema().indexOf(col) < 0) {
        throw new IllegalArgumentException("table " + DeltaTables.displayUri(table.getUri()) + " v"
            + table.getVersion() + " has no column " + col + " (columns: "
            + snapshot.getSchema().fieldNames() + "): batch inference scores labeled-images tables");
      }
    }
  }

  private static boolean selected(Optional<ColumnVector> sel, int r) {
    return sel.isEmpty() || (!sel.get().isNullAt(r) && sel.get().getBoolean(r));
  }

  private interface BatchConsumer {
    /** @return false when the rest of the file is not needed */
    boolean accept(String path, FilteredColumnarBatch batch);
  }

  private static void forEachFile(Engine engine, Snapshot snapshot, StructType schema, BatchConsumer consumer) {
    forEachFile(engine, snapshot, schema, null, consumer);
  }

  /** Reads every data file of the snapshot (or only {@code onlyPath}), in scan order. */
  private static void forEachFile(
      Engine engine, Snapshot snapshot, StructType schema, String onlyPath, BatchConsumer consumer) {
    Scan scan = snapshot.getScanBuilder().withReadSchema(schema).build();
    Row scanState = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            Row scanFile = fileRows.next();
            FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
            if (onlyPath != null && !onlyPath.equals(file.getPath())) {
              continue;
            }
            CloseableIterator<ColumnarBatch> data = engine.getParquetHandler()
                .readParquetFiles(Utils.singletonCloseableIterator(file), physical, Optional.empty())
                .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, scanState, scanFile, data)) {
              boolean more = true;
              while (more && logical.hasNext()) {
                more = consumer.accept(file.getPath(), logical.next());
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + DeltaTables.displayUri(snapshot.getPath()), e);
    }
  }

}
