package dev.keel.tables;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageFailures;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one split of a labeled-images table ({@link TableSchemas#LABELED_IMAGES}) at a pinned
 * version with a Kernel scan. Files whose statistics exclude the split are skipped; rows are
 * filtered again while reading. The result is ordered by {@code id}.
 */
public final class DeltaDatasetReader implements DatasetReader {
  private static final Logger log = LoggerFactory.getLogger(DeltaDatasetReader.class);
  private static final StructType READ_SCHEMA =
      new StructType()
          .add("id", io.delta.kernel.types.LongType.LONG)
          .add("label", io.delta.kernel.types.IntegerType.INTEGER)
          .add("split", io.delta.kernel.types.StringType.STRING)
          .add("image", io.delta.kernel.types.BinaryType.BINARY);

  private final Engine engine;

  public DeltaDatasetReader() {
    this(DeltaTables.defaultEngine());
  }

  public DeltaDatasetReader(Engine engine) {
    this.engine = engine;
  }

  /**
   * @throws IllegalArgumentException "table &lt;uri&gt; has no version N (latest is M)", or when
   *     the table is not a labeled-images table
   * @throws io.temporal.failure.ApplicationFailure non-retryable ({@value
   *     FailureTypes#STORAGE_UNUSABLE}) when the storage refuses access or does not exist
   */
  @Override
  public LabeledImages read(TableRef table, String split) {
    try {
      return readSplit(table, split);
    } catch (RuntimeException e) {
      throw StorageFailures.translate(DeltaTables.displayUri(table.getUri()), e);
    }
  }

  private LabeledImages readSplit(TableRef table, String split) {
    long t0 = System.nanoTime();
    Snapshot snapshot = DeltaTables.snapshotAt(engine, table.getUri(), table.getVersion());
    for (String col : READ_SCHEMA.fieldNames()) {
      if (snapshot.getSchema().indexOf(col) < 0) {
        throw new IllegalArgumentException(
            "table " + table.getUri() + " v" + table.getVersion() + " has no column " + col
                + " (columns: " + snapshot.getSchema().fieldNames() + ")");
      }
    }
    int[] shape = imageShape(snapshot);
    int imageBytes = shape[0] * shape[1];
    Predicate splitIs = new Predicate("=", new Column("split"), Literal.ofString(split));
    Scan scan =
        snapshot.getScanBuilder().withReadSchema(READ_SCHEMA).withFilter(splitIs).build();
    Row scanState = scan.getScanState(engine);
    StructType physicalSchema = ScanStateRow.getPhysicalDataReadSchema(scanState);

    Growing out = new Growing(imageBytes);
    int files = 0;
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            Row scanFile = fileRows.next();
            files++;
            FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
            CloseableIterator<ColumnarBatch> physical =
                engine
                    .getParquetHandler()
                    .readParquetFiles(
                        Utils.singletonCloseableIterator(file), physicalSchema, Optional.empty())
                    .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> data =
                Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
              while (data.hasNext()) {
                out.addBatch(data.next(), split, table, imageBytes);
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + table.getUri() + " v" + table.getVersion(), e);
    }
    LabeledImages result = out.sortedById(shape[0], shape[1]);
    log.info(
        "read {} {} rows from {} v{} ({} file(s)) in {} ms",
        result.size(), split, table.getUri(), table.getVersion(), files,
        (System.nanoTime() - t0) / 1_000_000);
    return result;
  }

  private static int[] imageShape(Snapshot snapshot) {
    String shape = snapshot.getTableProperties().getOrDefault(TableSchemas.IMAGE_SHAPE_PROPERTY, "28x28");
    String[] parts = shape.split("x");
    return new int[] {Integer.parseInt(parts[0].strip()), Integer.parseInt(parts[1].strip())};
  }

  /** Append-only column buffers. */
  private static final class Growing {
    long[] ids = new long[1 << 14];
    int[] labels = new int[1 << 14];
    byte[] pixels;
    int n;

    Growing(int imageBytes) {
      pixels = new byte[(1 << 14) * imageBytes];
    }

    void addBatch(FilteredColumnarBatch fb, String split, TableRef table, int imageBytes) {
      ColumnarBatch b = fb.getData();
      StructType s = b.getSchema();
      ColumnVector id = b.getColumnVector(s.indexOf("id"));
      ColumnVector label = b.getColumnVector(s.indexOf("label"));
      ColumnVector sp = b.getColumnVector(s.indexOf("split"));
      ColumnVector image = b.getColumnVector(s.indexOf("image"));
      Optional<ColumnVector> sel = fb.getSelectionVector();
      int size = b.getSize();
      ensure(n + size, imageBytes);
      for (int r = 0; r < size; r++) {
        if (sel.isPresent() && (sel.get().isNullAt(r) || !sel.get().getBoolean(r))) {
          continue;
        }
        if (sp.isNullAt(r) || !split.equals(sp.getString(r))) {
          continue;
        }
        byte[] img = image.getBinary(r);
        if (img == null || img.length != imageBytes) {
          throw new IllegalStateException(
              "table " + table.getUri() + " v" + table.getVersion() + ": image of id "
                  + id.getLong(r) + " has " + (img == null ? "no" : img.length) + " bytes, expected "
                  + imageBytes);
        }
        ids[n] = id.getLong(r);
        labels[n] = label.getInt(r);
        System.arraycopy(img, 0, pixels, n * imageBytes, imageBytes);
        n++;
      }
    }

    private void ensure(int capacity, int imageBytes) {
      if (capacity <= ids.length) {
        return;
      }
      int c = Math.max(capacity, ids.length * 2);
      ids = Arrays.copyOf(ids, c);
      labels = Arrays.copyOf(labels, c);
      pixels = Arrays.copyOf(pixels, Math.multiplyExact(c, imageBytes));
    }

    LabeledImages sortedById(int rows, int cols) {
      int imageBytes = rows * cols;
      boolean sorted = true;
      for (int i = 1; i < n && sorted; i++) {
        sorted = ids[i - 1] <= ids[i];
      }
      if (sorted) {
        return new LabeledImages(
            Arrays.copyOf(ids, n), Arrays.copyOf(labels, n),
            n * imageBytes == pixels.length ? pixels : Arrays.copyOf(pixels, n * imageBytes),
            rows, cols);
      }
      Integer[] order = IntStream.range(0, n).boxed().toArray(Integer[]::new);
      Arrays.sort(order, Comparator.comparingLong(i -> ids[i]));
      long[] sIds = new long[n];
      int[] sLabels = new int[n];
      byte[] sPixels = new byte[n * imageBytes];
      for (int k = 0; k < n; k++) {
        int i = order[k];
        sIds[k] = ids[i];
        sLabels[k] = labels[i];
        System.arraycopy(pixels, i * imageBytes, sPixels, k * imageBytes, imageBytes);
      }
      return new LabeledImages(sIds, sLabels, sPixels, rows, cols);
    }
  }
}
