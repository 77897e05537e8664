package dev.keel.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.storage.testing.IgnoresIfNoneMatchS3;
import dev.keel.storage.testing.S3ProxyExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * On a store that overwrites an object despite {@code If-None-Match: *}, two writers appending to
 * one table would silently lose commits (the second {@code N.json} replaces the first). Keel
 * refuses every such commit before it writes anything, with one non-retryable line; in
 * single-writer mode, which the user must choose, it commits and each commit records the mode.
 */
@ExtendWith(S3ProxyExtension.class)
class CommitsOnAStoreIgnoringIfNoneMatchAreRefusedNotLostTest {

  @AfterEach
  void backToS3Proxy() throws Exception {
    System.clearProperty("keel.s3.singleWriter");
    S3ProxyExtension.start();
  }

  @Test
  void twoConcurrentWritersAreBothRefusedAndNothingIsWritten() throws Exception {
    IgnoresIfNoneMatchS3 store = IgnoresIfNoneMatchS3.start();
    store.pointAwsPropertiesHere();
    String bucket = store.newBucket("unsafe-race");
    String table = "s3://" + bucket + "/keel/tables/t";

    int writers = 2;
    int commitsEach = 3;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<String>>> results = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      results.add(
          pool.submit(
              () -> {
                DeltaTableWriter out =
                    new DeltaTableWriter(
                        DeltaTables.newEngine(new Configuration()),
                        table,
                        TableSchemas.PREDICTIONS,
                        Map.of());
                go.await();
                List<String> refusals = new ArrayList<>();
                for (int c = 0; c < commitsEach; c++) {
                  try {
                    out.append(
                        DeltaTableWriterTest.predictions(3, writer * 100L + c * 10L, "w", 0));
                    refusals.add("committed");
                  } catch (KeelFailure f) {
                    assertFalse(f.retryable());
                    assertEquals(FailureTypes.STORAGE_UNUSABLE, f.type());
                    refusals.add(f.getMessage());
                  }
                }
                return refusals;
              }));
    }
    go.countDown();
    List<String> all = new ArrayList<>();
    for (Future<List<String>> f : results) {
      all.addAll(f.get());
    }
    pool.shutdown();

    assertEquals(writers * commitsEach, all.size());
    for (String message : all) {
      assertTrue(
          message.startsWith(
              "storage "
                  + table
                  + ": the S3 server ("
                  + store.endpoint()
                  + ") ignores If-None-Match on PUT"),
          message);
      assertTrue(message.contains("KEEL_S3_SINGLE_WRITER=true"), message);
    }
    List<String> keys =
        store.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
            .map(S3Object::key)
            .toList();
    assertEquals(List.of(), keys, "no data file, no commit, no probe object");
    assertFalse(DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isPresent());
  }

  @Test
  void singleWriterModeCommitsAndEachCommitSaysSo() throws Exception {
    IgnoresIfNoneMatchS3 store = IgnoresIfNoneMatchS3.start();
    store.pointAwsPropertiesHere();
    System.setProperty("keel.s3.singleWriter", "true");
    String bucket = store.newBucket("single-writer");
    String table = "s3://" + bucket + "/keel/tables/t";

    DeltaTableWriter out = new DeltaTableWriter(table, TableSchemas.PREDICTIONS);
    for (int c = 0; c < 3; c++) {
      assertEquals(c, out.append(DeltaTableWriterTest.predictions(2, c * 10L, "s", 0)));
    }
    for (int v = 0; v < 3; v++) {
      String key = String.format("keel/tables/t/_delta_log/%020d.json", v);
      String commit =
          store.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asUtf8String();
      assertTrue(commit.contains(DeltaTables.SINGLE_WRITER_ENGINE_INFO), commit);
    }
  }

  @Test
  void aStoreThatHonoursIfNoneMatchCommitsAsUsual() throws Exception {
    String bucket = S3ProxyExtension.newBucket("safe");
    String table = "s3://" + bucket + "/keel/tables/t";
    assertEquals(
        0,
        new DeltaTableWriter(table, TableSchemas.PREDICTIONS)
            .append(DeltaTableWriterTest.predictions(2, 0, "s", 0)));
    String commit =
        S3ProxyExtension.client()
            .getObjectAsBytes(
                b -> b.bucket(bucket).key("keel/tables/t/_delta_log/00000000000000000000.json"))
            .asUtf8String();
    assertTrue(commit.contains("\"engineInfo\":"), commit);
    assertFalse(commit.contains("single-writer"), commit);
  }
}
