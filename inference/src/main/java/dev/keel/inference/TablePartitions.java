package dev.keel.inference;

import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.TableRef;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.KernelInternals;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.kernel.Scan;
import io.delta.kernel.ScanBuilder;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Partitions of one split of a labeled-images or labeled-features table version, and the rows of
 * one partition. A partition is a row range of one data file, rows counted among that file's rows
 * of the split in file order (deletion vectors applied), so plan and read agree without sharing
 * anything but the file's path and the range.
 */
final class TablePartitions {
  private static final StructType SPLIT_ONLY = new StructType().add("split", StringType.STRING);
  private static final StructType IMAGE_ROWS = TableSchemas.IMAGE_ROWS_READ;
  private static final StructType FEATURE_ROWS = TableSchemas.FEATURE_ROWS_READ;

  private TablePartitions() {}

  /**
   * The plan, the number of rows it covers and the table's class names (empty when it has none).
   */
  record Plan(List<InferencePartition> partitions, long rows, List<String> classNames) {}

  /**
   * @throws IllegalArgumentException naming the table, version and split when the version does not
   *     exist, holds no rows, or holds no rows of {@code split}
   */
  static Plan plan(Engine engine, TableRef table, String split, long maxRows) {
    Snapshot snapshot = DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion());
    requireColumns(snapshot, table);
    String name = DeltaTables.displayUri(table.getUri()) + " v" + table.getVersion();
    Map<String, long[]> perFile = new LinkedHashMap<>(); // path -> rows of the split
    Map<String, Long> splits = new TreeMap<>();
    // Delta's file statistics skip the files that hold none of the split (the ETL writes a file per
    // split); only when nothing is left are all files read, for the message that lists the splits
    countSplits(engine, snapshot, Optional.of(splitIs(split)), split, perFile, splits);
    if (!splits.containsKey(split)) {
      perFile.clear();
      countSplits(engine, snapshot, Optional.empty(), split, perFile, splits);
    }
    if (splits.isEmpty()) {
      throw new IllegalArgumentException("table " + name + " holds no rows");
    }
    if (!splits.containsKey(split)) {
      throw new IllegalArgumentException(
          "split '"
              + split
              + "' has no rows in table "
              + name
              + " (splits: "
              + String.join(", ", new TreeSet<>(splits.keySet()))
              + ")");
    }
    List<InferencePartition> partitions = new ArrayList<>();
    long total = 0;
    for (Map.Entry<String, long[]> f : perFile.entrySet()) {
      long n = f.getValue()[0];
      if (n == 0) {
        continue;
      }
      total += n;
      // equal ranges of at most maxRows rows each
      long pieces = (n + maxRows - 1) / maxRows;
      for (long k = 0; k < pieces; k++) {
        long from = n * k / pieces;
        long to = n * (k + 1) / pieces;
        partitions.add(
            InferencePartition.newBuilder()
                .setIndex(partitions.size())
                .setFile(f.getKey())
                .setFirstRow(from)
                .setRows(to - from)
                .build());
      }
    }
    return new Plan(
        partitions,
        total,
        LabeledFeatures.names(
            snapshot.getTableProperties().get(TableSchemas.CLASS_NAMES_PROPERTY)));
  }

  private static Predicate splitIs(String split) {
    return new Predicate("=", new Column("split"), Literal.ofString(split));
  }

  /**
   * Counts the rows of every split in the files the scan keeps, and per file the rows of {@code
   * split}.
   */
  private static void countSplits(
      Engine engine,
      Snapshot snapshot,
      Optional<Predicate> filter,
      String split,
      Map<String, long[]> perFile,
      Map<String, Long> splits) {
    forEachFile(
        engine,
        snapshot,
        SPLIT_ONLY,
        null,
        filter,
        (path, batch) -> {
          long[] count = perFile.computeIfAbsent(path, p -> new long[1]);
          ColumnVector sp = batch.getData().getColumnVector(0);
          Optional<ColumnVector> sel = batch.getSelectionVector();
          for (int r = 0; r < batch.getData().getSize(); r++) {
            if (!KernelInternals.selected(sel, r) || sp.isNullAt(r)) {
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
  }

  /**
   * The rows of {@code partition}, in file order: images or feature vectors, as the table holds.
   *
   * @throws IllegalArgumentException when the version does not exist or the file is not part of it
   */
  static LabeledExamples read(
      Engine engine, TableRef table, String split, InferencePartition partition) {
    Snapshot snapshot = DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion());
    boolean images = requireColumns(snapshot, table);
    Map<String, String> properties = snapshot.getTableProperties();
    String name = DeltaTables.displayUri(table.getUri()) + " v" + table.getVersion();
    int n = Math.toIntExact(partition.getRows());
    long[] ids = new long[n];
    int[] labels = new int[n];
    int[] shape =
        images ? LabeledImages.shapeOf(properties, TableSchemas.IMAGE_SHAPE_PROPERTY) : new int[3];
    int imageBytes = shape[0] * shape[1] * shape[2];
    byte[] pixels = images ? new byte[Math.multiplyExact(n, imageBytes)] : null;
    float[][] vectors = images ? null : new float[n][];
    long first = partition.getFirstRow();
    long end = first + n;
    long[] ordinal = {0};
    int[] filled = {0};
    boolean[] found = {false};
    forEachFile(
        engine,
        snapshot,
        images ? IMAGE_ROWS : FEATURE_ROWS,
        partition.getFile(),
        Optional.empty(),
        (path, batch) -> {
          found[0] = true;
          ColumnarBatch b = batch.getData();
          ColumnVector id = b.getColumnVector(0);
          ColumnVector label = b.getColumnVector(1);
          ColumnVector sp = b.getColumnVector(2);
          ColumnVector example = b.getColumnVector(3);
          Optional<ColumnVector> sel = batch.getSelectionVector();
          for (int r = 0; r < b.getSize() && ordinal[0] < end; r++) {
            if (!KernelInternals.selected(sel, r)
                || sp.isNullAt(r)
                || !split.equals(sp.getString(r))) {
              continue;
            }
            long o = ordinal[0]++;
            if (o < first) {
              continue;
            }
            int i = filled[0]++;
            ids[i] = id.getLong(r);
            labels[i] = label.getInt(r);
            if (images) {
              byte[] img = example.isNullAt(r) ? null : example.getBinary(r);
              if (img == null || img.length != imageBytes) {
                throw new IllegalArgumentException(
                    "table "
                        + name
                        + ": image of id "
                        + ids[i]
                        + " has "
                        + (img == null ? "no" : img.length)
                        + " bytes, expected "
                        + imageBytes);
              }
              System.arraycopy(img, 0, pixels, i * imageBytes, imageBytes);
            } else {
              vectors[i] = vector(example, r, name, ids[i]);
            }
          }
          return ordinal[0] < end; // the rows after the range are not decoded
        });
    if (!found[0]) {
      throw new IllegalArgumentException(
          "table " + name + " has no data file " + partition.getFile());
    }
    if (filled[0] != n) {
      throw new IllegalArgumentException(
          "table "
              + name
              + ": file "
              + partition.getFile()
              + " holds "
              + filled[0]
              + " of the "
              + n
              + " planned rows from row "
              + first
              + " of split "
              + split);
    }
    if (images) {
      return new LabeledImages(
          ids,
          labels,
          pixels,
          shape[0],
          shape[1],
          shape[2],
          ImageNormalization.fromProperties(properties));
    }
    return features(ids, labels, vectors, properties, name);
  }

  private static float[] vector(ColumnVector column, int r, String table, long id) {
    if (column.isNullAt(r)) {
      throw new IllegalArgumentException(
          "table " + table + ": row of id " + id + " has no features");
    }
    ArrayValue a = column.getArray(r);
    ColumnVector elements = a.getElements();
    float[] v = new float[a.getSize()];
    for (int k = 0; k < v.length; k++) {
      if (elements.isNullAt(k)) {
        throw new IllegalArgumentException(
            "table " + table + ": feature " + k + " of id " + id + " is null");
      }
      v[k] = elements.getFloat(k);
    }
    return v;
  }

  private static LabeledFeatures features(
      long[] ids, int[] labels, float[][] vectors, Map<String, String> properties, String table) {
    List<String> names = LabeledFeatures.names(properties.get(TableSchemas.FEATURE_NAMES_PROPERTY));
    int width = vectors.length > 0 ? vectors[0].length : names.size();
    float[] flat = new float[Math.multiplyExact(vectors.length, width)];
    for (int i = 0; i < vectors.length; i++) {
      if (vectors[i].length != width) {
        throw new IllegalArgumentException(
            "table "
                + table
                + ": row of id "
                + ids[i]
                + " has "
                + vectors[i].length
                + " features, the partition's first row "
                + width);
      }
      System.arraycopy(vectors[i], 0, flat, i * width, width);
    }
    return new LabeledFeatures(
        ids,
        labels,
        flat,
        Math.max(width, 1),
        names,
        LabeledFeatures.names(properties.get(TableSchemas.CLASS_NAMES_PROPERTY)));
  }

  /**
   * @return true for a labeled-images table, false for a labeled-features one
   */
  private static boolean requireColumns(Snapshot snapshot, TableRef table) {
    StructType schema = snapshot.getSchema();
    boolean images = schema.indexOf("image") >= 0;
    for (String col : (images ? IMAGE_ROWS : FEATURE_ROWS).fieldNames()) {
      if (schema.indexOf(col) < 0) {
        throw new IllegalArgumentException(
            "table "
                + DeltaTables.displayUri(table.getUri())
                + " v"
                + table.getVersion()
                + " has no column "
                + col
                + " (columns: "
                + schema.fieldNames()
                + "): batch inference scores labeled-images and labeled-features tables");
      }
    }
    return images;
  }

  /**
   * Reads every data file of the snapshot (or only {@code onlyPath}), in scan order; with a filter,
   * only the files whose statistics may hold matching rows (their rows are not filtered).
   */
  private static void forEachFile(
      Engine engine,
      Snapshot snapshot,
      StructType schema,
      String onlyPath,
      Optional<Predicate> filter,
      KernelInternals.FileBatches batches) {
    ScanBuilder builder = snapshot.getScanBuilder().withReadSchema(schema);
    Scan scan = (filter.isPresent() ? builder.withFilter(filter.get()) : builder).build();
    try {
      KernelInternals.forEachBatch(
          engine, scan, path -> onlyPath == null || onlyPath.equals(path), batches);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + DeltaTables.displayUri(snapshot.getPath()), e);
    }
  }
}
