package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TableRef;
import dev.keel.etl.fashionmnist.IdxReader;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real Fashion-MNIST, real Delta tables under target/. Ingests the full dataset once. */
class IngestActivitiesImplTest {
  static final Path DATA = Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR);
  static Path root;
  static String tableUri;
  static IngestResult first;
  static long ingestMillis;

  @BeforeAll
  static void ingestOnce() throws Exception {
    root = Path.of("target", "delta-it", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
    tableUri = root.resolve("fashion").toUri().toString();
    long t0 = System.nanoTime();
    first = new IngestActivitiesImpl().ingest(request("fashion_mnist", "", tableUri));
    ingestMillis = (System.nanoTime() - t0) / 1_000_000;
    System.out.println("TIMING ingest (70k rows, cold JVM) ms=" + ingestMillis);
  }

  static IngestRequest request(String format, String dir, String table) {
    return IngestRequest.newBuilder()
        .setSource(DataSource.newBuilder().setFormat(DataSource.Format.valueOf(format)).setUri(dir))
        .setTableUri(table)
        .build();
  }

  @Test
  void firstIngestWritesOneVersionWithBothSplits() {
    assertFalse(first.getAlreadyIngested());
    assertEquals(0, first.getTable().getVersion());
    assertEquals(tableUri, first.getTable().getUri());
    assertEquals(70_000, first.getRows());
    assertEquals(Map.of("train", 60_000L, "test", 10_000L), first.getRowsPerSplitMap());
    assertEquals(64, first.getSourceChecksum().length());
  }

  @Test
  void deltaStandaloneReadsTheTable() throws Exception {
    DeltaLog log = DeltaLog.forTable(new Configuration(), root.resolve("fashion").toString());
    Snapshot snap = log.getSnapshotForVersionAsOf(first.getTable().getVersion());
    var schema = snap.getMetadata().getSchema();
    assertEquals(List.of("id", "label", "split", "image"), Arrays.asList(schema.getFieldNames()));
    assertEquals("long", schema.get("id").getDataType().getTypeName());
    assertEquals("integer", schema.get("label").getDataType().getTypeName());
    assertEquals("string", schema.get("split").getDataType().getTypeName());
    assertEquals("binary", schema.get("image").getDataType().getTypeName());
    Map<String, Integer> perSplit = new HashMap<>();
    long idSum = 0;
    try (CloseableIterator<RowRecord> rows = snap.open()) {
      while (rows.hasNext()) {
        RowRecord r = rows.next();
        perSplit.merge(r.getString("split"), 1, Integer::sum);
        idSum += r.getLong("id");
        assertEquals(784, r.getBinary("image").length);
      }
    }
    assertEquals(Map.of("train", 60_000, "test", 10_000), perSplit);
    assertEquals(69_999L * 70_000 / 2, idSum); // ids are exactly 0..69999
  }

  @Test
  void filesAreSnappyAndImageHasNoStats() throws Exception {
    DeltaLog log = DeltaLog.forTable(new Configuration(), root.resolve("fashion").toString());
    List<AddFile> files = log.getSnapshotForVersionAsOf(0).getAllFiles();
    assertTrue(files.size() >= 2, "train and test go to separate files: " + files.size());
    long total = 0;
    for (AddFile f : files) {
      total += f.getSize();
      String stats = f.getStats();
      assertTrue(stats.contains("\"numRecords\""), stats);
      assertTrue(stats.contains("\"split\""), stats);
      assertFalse(stats.contains("\"image\""), "no stats on image: " + stats);
      var path =
          new org.apache.hadoop.fs.Path(root.resolve("fashion").resolve(f.getPath()).toUri());
      try (ParquetFileReader r =
          ParquetFileReader.open(HadoopInputFile.fromPath(path, new Configuration()))) {
        for (BlockMetaData block : r.getFooter().getBlocks()) {
          for (ColumnChunkMetaData c : block.getColumns()) {
            assertEquals(CompressionCodecName.SNAPPY, c.getCodec(), c.getPath().toString());
          }
        }
      }
    }
    System.out.println("TIMING table data bytes=" + total + " in " + files.size() + " files");
    assertTrue(total < 70_000L * 784, "compressed: " + total);
  }

  @Test
  void reingestIsANoOp() {
    IngestResult again =
        new IngestActivitiesImpl().ingest(request("fashion_mnist", "file://" + DATA, tableUri));
    assertTrue(again.getAlreadyIngested());
    assertEquals(first.getTable().getVersion(), again.getTable().getVersion());
    assertEquals(first.getSourceChecksum(), again.getSourceChecksum());
    assertEquals(first.getRowsPerSplitMap(), again.getRowsPerSplitMap());
    assertEquals(
        first.getTable().getVersion(),
        DeltaTables.latestVersion(DeltaTables.defaultEngine(), tableUri).getAsLong());
  }

  @Test
  void failureBeforeCommitLeavesNoNewVersion() {
    // An existing table (v0 from another writer) that does not hold this source yet.
    String uri = root.resolve("crash").toString();
    long v0 =
        new DeltaTableWriter(uri, TableSchemas.LABELED_IMAGES)
            .append(
                Columns.of(1)
                    .add("id", new long[] {-1})
                    .add("label", new int[] {0})
                    .add("split", new String[] {"extra"})
                    .add("image", new byte[][] {new byte[784]}));
    assertEquals(0, v0);
    var crashing =
        new IngestActivitiesImpl(
            DeltaTables.defaultEngine(),
            () -> {
              throw new IllegalStateException("injected crash before commit");
            });
    var e =
        assertThrows(
            IllegalStateException.class,
            () -> crashing.ingest(request("fashion_mnist", DATA.toString(), uri)));
    assertEquals("injected crash before commit", e.getMessage());
    assertEquals(0, DeltaTables.latestVersion(DeltaTables.defaultEngine(), uri).getAsLong());

    // and the retry commits exactly once
    IngestResult retry =
        new IngestActivitiesImpl().ingest(request("fashion_mnist", DATA.toString(), uri));
    assertFalse(retry.getAlreadyIngested());
    assertEquals(1, retry.getTable().getVersion());
    LabeledImages test = new DeltaDatasetReader().read(retry.getTable(), "test");
    assertEquals(10_000, test.size());
  }

  @Test
  void failureBeforeCreateLeavesNoTable() {
    String uri = root.resolve("never").toString();
    var crashing =
        new IngestActivitiesImpl(
            DeltaTables.defaultEngine(),
            () -> {
              throw new IllegalStateException("boom");
            });
    assertThrows(
        IllegalStateException.class, () -> crashing.ingest(request("fashion_mnist", "", uri)));
    assertTrue(DeltaTables.latestVersion(DeltaTables.defaultEngine(), uri).isEmpty());
  }

  @Test
  void readerMatchesIdxFiles() throws Exception {
    DeltaDatasetReader reader = new DeltaDatasetReader();
    long t0 = System.nanoTime();
    LabeledImages train = reader.read(first.getTable(), "train");
    long trainMs = (System.nanoTime() - t0) / 1_000_000;
    t0 = System.nanoTime();
    LabeledImages test = reader.read(first.getTable(), "test");
    long testMs = (System.nanoTime() - t0) / 1_000_000;
    t0 = System.nanoTime();
    reader.read(first.getTable(), "train");
    long trainWarmMs = (System.nanoTime() - t0) / 1_000_000;
    System.out.println(
        "TIMING read train ms="
            + trainMs
            + " (again, warm: "
            + trainWarmMs
            + ") test ms="
            + testMs);

    assertEquals(60_000, train.size());
    assertEquals(10_000, test.size());
    assertEquals(28, train.rows());
    assertEquals(28, train.cols());
    var idxTrain = IdxReader.readImages(DATA.resolve("train-images-idx3-ubyte.gz"));
    byte[] idxTrainLabels = IdxReader.readLabels(DATA.resolve("train-labels-idx1-ubyte.gz"));
    var idxTest = IdxReader.readImages(DATA.resolve("t10k-images-idx3-ubyte.gz"));
    byte[] idxTestLabels = IdxReader.readLabels(DATA.resolve("t10k-labels-idx1-ubyte.gz"));
    for (int i : new int[] {0, 1, 12_345, 59_999}) {
      assertEquals(i, train.ids()[i]);
      assertEquals(idxTrainLabels[i] & 0xFF, train.labels()[i]);
      assertArrayEquals(
          Arrays.copyOfRange(idxTrain.pixels(), i * 784, (i + 1) * 784),
          Arrays.copyOfRange(train.pixels(), i * 784, (i + 1) * 784),
          "train image " + i);
    }
    for (int i : new int[] {0, 4_321, 9_999}) {
      assertEquals(60_000L + i, test.ids()[i]);
      assertEquals(idxTestLabels[i] & 0xFF, test.labels()[i]);
      assertArrayEquals(
          Arrays.copyOfRange(idxTest.pixels(), i * 784, (i + 1) * 784),
          Arrays.copyOfRange(test.pixels(), i * 784, (i + 1) * 784),
          "test image " + i);
    }
    // the whole split, byte for byte
    assertArrayEquals(idxTrain.pixels(), train.pixels());
    assertArrayEquals(idxTest.pixels(), test.pixels());
  }

  @Test
  void readingAMissingVersionIsAClearError() {
    TableRef ref = TableRef.newBuilder().setUri(tableUri).setVersion(7).build();
    var e =
        assertThrows(
            IllegalArgumentException.class, () -> new DeltaDatasetReader().read(ref, "train"));
    assertEquals(
        "table "
            + tableUri
            + " has no version 7 (latest is "
            + DeltaTables.latestVersion(DeltaTables.defaultEngine(), tableUri).getAsLong()
            + ")",
        e.getMessage());
  }

  @Test
  void missingDataDirIsOneLineNonRetryable() {
    Path missing = root.resolve("no-such-dir");
    var e =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(
                        request(
                            "fashion_mnist", missing.toString(), root.resolve("x").toString())));
    assertTrue(e.isNonRetryable());
    assertEquals(FailureTypes.DATASET_MISSING, e.getType());
    assertEquals(
        "Fashion-MNIST not found at "
            + missing
            + ": install it with 'apt-get install -y dataset-fashion-mnist'",
        e.getOriginalMessage());
    assertFalse(e.getOriginalMessage().contains("\n"));
  }

  @Test
  void ingestIntoATableWithAnotherSchemaIsNonRetryable() {
    String uri = root.resolve("other-schema").toString();
    new DeltaTableWriter(uri, TableSchemas.PREDICTIONS)
        .append(
            Columns.of(1)
                .add("id", new long[] {1})
                .add("predicted_label", new int[] {1})
                .add("score", new double[] {1})
                .add("checkpoint_id", new String[] {"c"})
                .add("source_table_version", new long[] {0})
                .add("source_table_uri", new String[] {"s"})
                .add("model_version", new String[] {""})
                .add("run_id", new String[] {"r"}));
    var e =
        assertThrows(
            ApplicationFailure.class,
            () -> new IngestActivitiesImpl().ingest(request("fashion_mnist", "", uri)));
    assertTrue(e.isNonRetryable());
    assertEquals(FailureTypes.INVALID_TABLE, e.getType());
    assertEquals(0, DeltaTables.latestVersion(DeltaTables.defaultEngine(), uri).getAsLong());
  }

  @Test
  void anUnsetOrUnknownFormatIsNonRetryable() {
    // a number no value names: what a client built against newer protos could send as binary
    IngestRequest unknown =
        request("csv", "", root.resolve("y").toString()).toBuilder()
            .setSource(
                DataSource.newBuilder().setFormatValue(42).setUri(root.resolve("x").toString()))
            .build();
    var e =
        assertThrows(ApplicationFailure.class, () -> new IngestActivitiesImpl().ingest(unknown));
    assertTrue(e.isNonRetryable());
    assertEquals(
        "unknown source.format 42 (supported: csv, fashion_mnist, image_folder, parquet)",
        e.getOriginalMessage());
    IngestRequest unset =
        unknown.toBuilder().setSource(unknown.getSource().toBuilder().clearFormat()).build();
    e = assertThrows(ApplicationFailure.class, () -> new IngestActivitiesImpl().ingest(unset));
    assertTrue(e.isNonRetryable());
    assertTrue(
        e.getOriginalMessage().startsWith("source.format is not set"), e.getOriginalMessage());
  }
}
