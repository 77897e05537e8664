package dev.keel.etl.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.config.SourceFormat;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TableRef;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.IdxReader;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Delta tables on s3:// through Hadoop S3A, against an embedded S3 server on 127.0.0.1. */
@ExtendWith(S3ProxyExtension.class)
class S3DeltaTablesTest {
  static final Path DATA = Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR);

  static IngestRequest request(String table) {
    return IngestRequest.newBuilder()
        .setSource(DataSource.newBuilder().setFormat(SourceFormat.FASHION_MNIST.proto()))
        .setTableUri(table)
        .build();
  }

  @Test
  void fashionMnistIngestsIntoS3AndReadsBack() throws Exception {
    String bucket = S3ProxyExtension.newBucket("etl");
    StorageRoot root = StorageRoot.of("s3://" + bucket + "/keel");
    IngestActivitiesImpl ingest = new IngestActivitiesImpl(root);

    long t0 = System.nanoTime();
    IngestResult first = ingest.ingest(request("fashion"));
    System.out.println("TIMING s3 ingest (70k rows) ms=" + (System.nanoTime() - t0) / 1_000_000);
    assertEquals("s3://" + bucket + "/keel/tables/fashion", first.getTable().getUri());
    assertEquals(0, first.getTable().getVersion());
    assertEquals(70_000, first.getRows());
    assertFalse(first.getAlreadyIngested());

    List<String> keys =
        S3ProxyExtension.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
            .map(S3Object::key)
            .collect(Collectors.toList());
    assertTrue(
        keys.contains("keel/tables/fashion/_delta_log/00000000000000000000.json"), keys.toString());
    assertTrue(
        keys.stream().anyMatch(k -> k.startsWith("keel/tables/fashion/") && k.endsWith(".parquet")),
        keys.toString());

    DeltaDatasetReader reader = new DeltaDatasetReader();
    LabeledImages train = reader.read(first.getTable(), "train");
    LabeledImages test = reader.read(first.getTable(), "test");
    assertEquals(60_000, train.size());
    assertEquals(10_000, test.size());
    IdxReader.Images idx = IdxReader.readImages(DATA.resolve("t10k-images-idx3-ubyte.gz"));
    byte[] labels = IdxReader.readLabels(DATA.resolve("t10k-labels-idx1-ubyte.gz"));
    assertEquals(60_000L, test.ids()[0]);
    assertEquals(labels[9_999] & 0xFF, test.labels()[9_999]);
    assertArrayEquals(
        Arrays.copyOfRange(idx.pixels(), 0, 784), Arrays.copyOfRange(test.pixels(), 0, 784));

    IngestResult again = ingest.ingest(request("fashion"));
    assertTrue(again.getAlreadyIngested(), "same source checksum: nothing written");
    assertEquals(0, again.getTable().getVersion());
  }

  /**
   * Four writers with their own engines (as four processes would have) append to one table at once.
   * Every commit lands: a lost commit would leave fewer versions or fewer rows.
   */
  @Test
  void concurrentAppendersAllLand() throws Exception {
    String table = "s3://" + S3ProxyExtension.newBucket("race") + "/t";
    int writers = 4;
    int commitsEach = 5;
    DeltaTableWriter creator = new DeltaTableWriter(table, TableSchemas.PREDICTIONS);
    creator.append(rows(-1, 1));

    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<Long>>> results = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      Engine engine = DeltaTables.newEngine(new Configuration());
      results.add(
          pool.submit(
              () -> {
                DeltaTableWriter out =
                    new DeltaTableWriter(engine, table, TableSchemas.PREDICTIONS, Map.of());
                go.await();
                List<Long> versions = new ArrayList<>();
                for (int c = 0; c < commitsEach; c++) {
                  versions.add(out.append(rows(writer * 100 + c, 3)));
                }
                return versions;
              }));
    }
    go.countDown();
    List<Long> all = new ArrayList<>();
    for (Future<List<Long>> f : results) {
      all.addAll(f.get());
    }
    pool.shutdown();

    int commits = writers * commitsEach;
    assertEquals(
        commits, all.stream().distinct().count(), "every commit got its own version: " + all);
    Snapshot snap = DeltaTables.latestSnapshot(DeltaTables.defaultEngine(), table).orElseThrow();
    assertEquals(commits, snap.getVersion());
    long files = 0;
    try (var scanFiles = snap.getScanBuilder().build().getScanFiles(DeltaTables.defaultEngine())) {
      while (scanFiles.hasNext()) {
        try (var it = scanFiles.next().getRows()) {
          while (it.hasNext()) {
            it.next();
            files++;
          }
        }
      }
    }
    assertEquals(1 + commits, files, "data files referenced by the table (one per commit)");
  }

  @Tag("s3-credentials") // moto checks no credentials: not run against it
  @Test
  void wrongCredentialsFailOnceWithOneLineNamingTheTable() {
    String bucket = S3ProxyExtension.newBucket("denied");
    Engine bad =
        DeltaTables.newEngine(
            new Configuration(),
            S3ProxyExtension.settings().withStaticCredentials("nobody", "wrong-secret"));
    String table = "s3://" + bucket + "/keel/tables/fashion";
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class, () -> new IngestActivitiesImpl(bad).ingest(request(table)));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.STORAGE_UNUSABLE, f.getType());
    assertTrue(
        f.getOriginalMessage().startsWith("storage " + table + ": access denied"),
        f.getOriginalMessage());
    assertFalse(f.getOriginalMessage().contains("\n"), f.getOriginalMessage());
  }

  @Test
  void missingBucketFailsWithOneLine() {
    String table = "s3://keel-no-such-bucket-4711/t";
    KeelFailure f =
        assertThrows(
            KeelFailure.class,
            () ->
                new DeltaDatasetReader()
                    .read(TableRef.newBuilder().setUri(table).setVersion(0).build(), "train"));
    assertFalse(f.retryable());
    assertEquals(FailureTypes.STORAGE_UNUSABLE, f.type());
    assertEquals("storage " + table + ": the bucket does not exist", f.getMessage());
  }

  private static Columns rows(long firstId, int n) {
    long[] ids = new long[n];
    int[] labels = new int[n];
    double[] scores = new double[n];
    String[] ckpt = new String[n];
    long[] versions = new long[n];
    String[] run = new String[n];
    for (int i = 0; i < n; i++) {
      ids[i] = firstId * 10 + i;
      ckpt[i] = "c";
      run[i] = "r";
    }
    return Columns.of(n)
        .add("id", ids)
        .add("predicted_label", labels)
        .add("score", scores)
        .add("checkpoint_id", ckpt)
        .add("source_table_version", versions)
        .add("source_table_uri", ckpt)
        .add("model_version", ckpt)
        .add("run_id", run);
  }
}
