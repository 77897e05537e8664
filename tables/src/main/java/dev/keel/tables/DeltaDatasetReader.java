package dev.keel.tables;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageFailures;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one split of a labeled-images ({@link TableSchemas#LABELED_IMAGES}) or labeled-features
 * ({@link TableSchemas#LABELED_FEATURES}) table at a pinned version with a Kernel scan; the schema
 * says which (an {@code image} or a {@code features} column). Files whose statistics exclude the
 * split are skipped; rows are filtered again while reading. The result is ordered by {@code id}.
 */
public final class DeltaDatasetReader implements DatasetReader {
  private static final Logger log = LoggerFactory.getLogger(DeltaDatasetReader.class);
  private static final String IMAGE = "image";
  private static final String FEATURES = "features";
  private static final StructType IMAGES_READ_SCHEMA = TableSchemas.IMAGE_ROWS_READ;
  private static final StructType FEATURES_READ_SCHEMA = TableSchemas.FEATURE_ROWS_READ;

  private final Engine engine;

  public DeltaDatasetReader() {
    this(DeltaTables.defaultEngine());
  }

  public DeltaDatasetReader(Engine engine) {
    this.engine = engine;
  }

  /**
   * @throws IllegalArgumentException "table &lt;uri&gt; has no version N (latest is M)", or when
   *     the table is neither a labeled-images nor a labeled-features table, or a row is malformed
   *     (an image of another size, a feature vector of another length or with a null), naming the
   *     table and the row's id
   * @throws KeelFailure non-retryable ({@value FailureTypes#STORAGE_UNUSABLE}) when the storage
   *     refuses access or does not exist
   */
  @Override
  public LabeledExamples readExamples(TableRef table, String split) {
    try {
      return readSplit(table, split);
    } catch (RuntimeException e) {
      throw StorageFailures.translate(DeltaTables.displayUri(table.getUri()), e);
    }
  }

  private LabeledExamples readSplit(TableRef table, String split) {
    long t0 = System.nanoTime();
    Snapshot snapshot = DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion());
    StructType tableSchema = snapshot.getSchema();
    boolean images = tableSchema.indexOf(IMAGE) >= 0;
    if (!images && tableSchema.indexOf(FEATURES) < 0) {
      throw new IllegalArgumentException(
          "table "
              + table.getUri()
              + " v"
              + table.getVersion()
              + " has neither an image nor a features column"
              + " (columns: "
              + tableSchema.fieldNames()
              + ")");
    }
    // a float label is a regression table's value, a float array a multilabel table's targets; an
    // int one a class
    DataType labelType =
        tableSchema.indexOf("label") >= 0 ? tableSchema.get("label").getDataType() : null;
    boolean multilabel = !images && labelType instanceof ArrayType;
    boolean valued = !images && (labelType instanceof FloatType || multilabel);
    StructType readSchema =
        images
            ? IMAGES_READ_SCHEMA
            : multilabel
                ? TableSchemas.MULTILABEL_ROWS_READ
                : valued ? TableSchemas.VALUED_ROWS_READ : FEATURES_READ_SCHEMA;
    for (String col : readSchema.fieldNames()) {
      if (tableSchema.indexOf(col) < 0) {
        throw new IllegalArgumentException(
            "table "
                + table.getUri()
                + " v"
                + table.getVersion()
                + " has no column "
                + col
                + " (columns: "
                + tableSchema.fieldNames()
                + ")");
      }
    }
    Map<String, String> properties = snapshot.getTableProperties();
    int[] shape = images ? imageShape(table, properties) : null;
    Predicate splitIs = new Predicate("=", new Column("split"), Literal.ofString(split));
    Scan scan = snapshot.getScanBuilder().withReadSchema(readSchema).withFilter(splitIs).build();

    List<String> labelNames =
        LabeledFeatures.names(properties.get(TableSchemas.CLASS_NAMES_PROPERTY));
    if (multilabel && labelNames.isEmpty()) {
      throw new IllegalArgumentException(
          "table "
              + table.getUri()
              + " v"
              + table.getVersion()
              + ": a multilabel table (an array label) needs its label names in the table property "
              + TableSchemas.CLASS_NAMES_PROPERTY);
    }
    Growing out =
        images
            ? Growing.images(shape[0] * shape[1] * shape[2])
            : Growing.features(valued, multilabel ? labelNames.size() : 0);
    int files;
    try {
      files =
          KernelInternals.forEachBatch(
              engine,
              scan,
              (path, batch) -> {
                out.addBatch(batch, split, table);
                return true;
              });
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + table.getUri() + " v" + table.getVersion(), e);
    }
    out.sortById();
    LabeledExamples result =
        images
            ? new LabeledImages(
                out.ids,
                out.labels,
                out.bytes,
                shape[0],
                shape[1],
                shape[2],
                normalization(table, properties))
            : features(table, properties, labelNames, out);
    log.info(
        "read {} {} rows ({}) from {} v{} ({} file(s)) in {} ms",
        result.size(),
        split,
        result.describe(),
        table.getUri(),
        table.getVersion(),
        files,
        (System.nanoTime() - t0) / 1_000_000);
    return result;
  }

  /**
   * The table properties of a version: what it records about its rows (shape, classes, image
   * statistics).
   */
  public Map<String, String> properties(TableRef table) {
    return DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion()).getTableProperties();
  }

  /**
   * @param classNames the table's class names (a multilabel table's label names), as {@link
   *     #readSplit} parsed them
   */
  private static LabeledFeatures features(
      TableRef table, Map<String, String> properties, List<String> classNames, Growing out) {
    List<String> names = LabeledFeatures.names(properties.get(TableSchemas.FEATURE_NAMES_PROPERTY));
    int width = out.n > 0 ? out.width : names.size();
    if (width < 1) {
      throw new IllegalArgumentException(
          "table "
              + table.getUri()
              + " v"
              + table.getVersion()
              + ": the split is empty and the table property "
              + TableSchemas.FEATURE_NAMES_PROPERTY
              + " names no features, so the feature count is unknown");
    }
    if (!names.isEmpty() && names.size() != width) {
      throw new IllegalArgumentException(
          "table "
              + table.getUri()
              + " v"
              + table.getVersion()
              + ": "
              + TableSchemas.FEATURE_NAMES_PROPERTY
              + " names "
              + names.size()
              + " features but rows have "
              + width);
    }
    if (out.values != null && out.arrayLabels) {
      return LabeledFeatures.multilabel(out.ids, out.values, classNames, out.floats, width, names);
    }
    if (out.values != null) {
      return LabeledFeatures.valued(out.ids, out.values, out.floats, width, names);
    }
    return new LabeledFeatures(out.ids, out.labels, out.floats, width, names, classNames);
  }

  private static int[] imageShape(TableRef table, Map<String, String> properties) {
    try {
      return LabeledImages.shapeOf(properties, TableSchemas.IMAGE_SHAPE_PROPERTY);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "table " + table.getUri() + " v" + table.getVersion() + ": " + e.getMessage(), e);
    }
  }

  private static ImageNormalization normalization(TableRef table, Map<String, String> properties) {
    try {
      return ImageNormalization.fromProperties(properties);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "table " + table.getUri() + " v" + table.getVersion() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Append-only column buffers; the example column is fixed-width binary (images) or a float array
   * (features) whose width the first row sets and every other row must match.
   */
  private static final class Growing {
    private final boolean images;
    long[] ids = new long[1 << 12];
    int[] labels = new int[1 << 12];
    float[] values;
    // floats of values per row; arrayLabels: read from a float array (multilabel), else one float
    int valueWidth = 1;
    boolean arrayLabels;
    byte[] bytes;
    float[] floats;
    int width;
    int n;

    private Growing(boolean images, int width) {
      this.images = images;
      this.width = width;
      if (images) {
        bytes = new byte[(1 << 12) * width];
      }
    }

    static Growing images(int imageBytes) {
      return new Growing(true, imageBytes);
    }

    /**
     * @param valued whether the label is a float (regression) or a float array (multilabel)
     * @param arrayWidth the length of every row's float array label; 0 when it is no array
     */
    static Growing features(boolean valued, int arrayWidth) {
      Growing g = new Growing(false, -1);
      g.arrayLabels = arrayWidth > 0;
      g.valueWidth = Math.max(1, arrayWidth);
      g.values = valued ? new float[g.ids.length * g.valueWidth] : null;
      return g;
    }

    void addBatch(FilteredColumnarBatch fb, String split, TableRef table) {
      ColumnarBatch b = fb.getData();
      StructType s = b.getSchema();
      ColumnVector id = b.getColumnVector(s.indexOf("id"));
      ColumnVector label = b.getColumnVector(s.indexOf("label"));
      ColumnVector sp = b.getColumnVector(s.indexOf("split"));
      ColumnVector example = b.getColumnVector(s.indexOf(images ? IMAGE : FEATURES));
      Optional<ColumnVector> sel = fb.getSelectionVector();
      int size = b.getSize();
      for (int r = 0; r < size; r++) {
        if (!KernelInternals.selected(sel, r)) {
          continue;
        }
        if (sp.isNullAt(r) || !split.equals(sp.getString(r))) {
          continue;
        }
        if (images) {
          addImage(id.getLong(r), label.getInt(r), example.getBinary(r), table);
        } else {
          if (arrayLabels) {
            addTargets(id.getLong(r), label.isNullAt(r) ? null : label.getArray(r), table);
          }
          addFeatures(
              id.getLong(r),
              values != null ? 0 : label.getInt(r),
              values != null && !arrayLabels ? label.getFloat(r) : 0,
              example.isNullAt(r) ? null : example.getArray(r),
              table);
        }
      }
    }

    private void addImage(long rowId, int rowLabel, byte[] img, TableRef table) {
      if (img == null || img.length != width) {
        throw new IllegalArgumentException(
            "table "
                + table.getUri()
                + " v"
                + table.getVersion()
                + ": image of id "
                + rowId
                + " has "
                + (img == null ? "no" : img.length)
                + " bytes, expected "
                + width);
      }
      ensure(n + 1);
      System.arraycopy(img, 0, bytes, n * width, width);
      ids[n] = rowId;
      labels[n] = rowLabel;
      n++;
    }

    /** A multilabel row's targets, at row {@code n} (which {@link #addFeatures} then adds). */
    private void addTargets(long rowId, ArrayValue targets, TableRef table) {
      int length = targets == null ? 0 : targets.getSize();
      ColumnVector elements = targets == null ? null : targets.getElements();
      for (int k = 0; k < length && elements != null; k++) {
        if (elements.isNullAt(k)) {
          length = -1;
        }
      }
      if (length != valueWidth) {
        throw new IllegalArgumentException(
            "table "
                + table.getUri()
                + " v"
                + table.getVersion()
                + ": the label of id "
                + rowId
                + (length < 0 ? " has a null target" : " has " + length + " targets")
                + ", expected "
                + valueWidth
                + " (one per label of "
                + TableSchemas.CLASS_NAMES_PROPERTY
                + ")");
      }
      ensure(n + 1);
      for (int k = 0; k < valueWidth; k++) {
        values[n * valueWidth + k] = elements.getFloat(k);
      }
    }

    private void addFeatures(
        long rowId, int rowLabel, float rowValue, ArrayValue values, TableRef table) {
      int length = values == null ? 0 : values.getSize();
      if (width < 0) {
        width = length;
        floats = new float[ids.length * Math.max(1, width)];
      }
      if (values == null || length != width || length == 0) {
        throw new IllegalArgumentException(
            "table "
                + table.getUri()
                + " v"
                + table.getVersion()
                + ": features of id "
                + rowId
                + " has "
                + (values == null ? "no" : length)
                + " values, expected "
                + (width > 0 ? width : "at least one"));
      }
      ensure(n + 1);
      ColumnVector elements = values.getElements();
      for (int k = 0; k < width; k++) {
        if (elements.isNullAt(k)) {
          throw new IllegalArgumentException(
              "table "
                  + table.getUri()
                  + " v"
                  + table.getVersion()
                  + ": feature "
                  + k
                  + " of id "
                  + rowId
                  + " is null");
        }
        floats[n * width + k] = elements.getFloat(k);
      }
      ids[n] = rowId;
      labels[n] = rowLabel;
      if (this.values != null && !arrayLabels) {
        this.values[n] = rowValue;
      }
      n++;
    }

    private void ensure(int capacity) {
      if (capacity <= ids.length) {
        return;
      }
      int c = Math.max(capacity, ids.length * 2);
      ids = Arrays.copyOf(ids, c);
      labels = Arrays.copyOf(labels, c);
      if (values != null) {
        values = Arrays.copyOf(values, Math.multiplyExact(c, valueWidth));
      }
      if (images) {
        bytes = Arrays.copyOf(bytes, Math.multiplyExact(c, width));
      } else {
        floats = Arrays.copyOf(floats, Math.multiplyExact(c, width));
      }
    }

    /** Trims the buffers to {@code n} rows, ordered by id. */
    void sortById() {
      boolean sorted = true;
      for (int i = 1; i < n && sorted; i++) {
        sorted = ids[i - 1] <= ids[i];
      }
      int w = Math.max(0, width);
      Integer[] order = IntStream.range(0, n).boxed().toArray(Integer[]::new);
      if (!sorted) {
        Arrays.sort(order, Comparator.comparingLong(i -> ids[i]));
      }
      long[] sIds = new long[n];
      int[] sLabels = new int[n];
      float[] sValues = values == null ? null : new float[n * valueWidth];
      byte[] sBytes = images ? new byte[n * w] : null;
      float[] sFloats = images ? null : new float[n * w];
      for (int k = 0; k < n; k++) {
        int i = order[k];
        sIds[k] = ids[i];
        sLabels[k] = labels[i];
        if (values != null) {
          System.arraycopy(values, i * valueWidth, sValues, k * valueWidth, valueWidth);
        }
        if (images) {
          System.arraycopy(bytes, i * w, sBytes, k * w, w);
        } else {
          System.arraycopy(floats, i * w, sFloats, k * w, w);
        }
      }
      ids = sIds;
      labels = sLabels;
      values = sValues;
      bytes = sBytes;
      floats = sFloats;
    }
  }
}
