package dev.keel.tables;

import io.delta.kernel.Scan;
import io.delta.kernel.Table;
import io.delta.kernel.TransactionBuilder;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.TableImpl;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The one door to Delta Kernel's {@code io.delta.kernel.internal}, which is not Kernel's public API
 * and may change in any release: the loop that reads a scan's data files (Kernel's public API has
 * no file path or physical schema for a scan file) REPLACE TABLE (public only on the internal table
 * class) and Kernel's iterator adapter. An upgrade of Kernel that moves them is mended here.
 */
public final class KernelInternals {
  private KernelInternals() {}

  /** Takes the logical batches of one data file; false when the rest of that file is not needed. */
  @FunctionalInterface
  public interface FileBatches {
    boolean accept(String path, FilteredColumnarBatch batch);
  }

  /**
   * Reads the data files of {@code scan} in scan order, hands each logical batch (deletion vectors
   * applied as the selection vector) to {@code batches}, and skips the files whose path {@code
   * readFile} refuses.
   *
   * @return the number of files read
   */
  public static int forEachBatch(
      Engine engine, Scan scan, Predicate<String> readFile, FileBatches batches)
      throws IOException {
    Row scanState = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
    int files = 0;
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            Row scanFile = fileRows.next();
            FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
            if (!readFile.test(file.getPath())) {
              continue;
            }
            files++;
            CloseableIterator<ColumnarBatch> data =
                engine
                    .getParquetHandler()
                    .readParquetFiles(
                        Utils.singletonCloseableIterator(file), physical, Optional.empty())
                    .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, scanState, scanFile, data)) {
              boolean more = true;
              while (more && logical.hasNext()) {
                more = batches.accept(file.getPath(), logical.next());
              }
            }
          }
        }
      }
    }
    return files;
  }

  /** Reads every data file of {@code scan}; see {@link #forEachBatch}. */
  public static int forEachBatch(Engine engine, Scan scan, FileBatches batches) throws IOException {
    return forEachBatch(engine, scan, path -> true, batches);
  }

  /** {@code items} as the closeable iterator Kernel's transaction and handler calls take. */
  public static <T> CloseableIterator<T> closeable(Iterator<T> items) {
    return Utils.toCloseableIterator(items);
  }

  /** Whether row {@code r} of a batch survived its deletion vector. */
  public static boolean selected(Optional<ColumnVector> selection, int r) {
    return selection.isEmpty() || (!selection.get().isNullAt(r) && selection.get().getBoolean(r));
  }

  /**
   * A transaction that replaces the table at {@code path} in one commit: every current file
   * removed, the new ones added, older versions still readable by time travel.
   */
  public static TransactionBuilder replaceTable(Engine engine, String path, String engineInfo) {
    return ((TableImpl) Table.forPath(engine, path))
        .createReplaceTableTransactionBuilder(engine, engineInfo);
  }
}
