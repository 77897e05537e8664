package dev.keel.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.storage.testing.IgnoresIfNoneMatchS3;
import dev.keel.storage.testing.S3ProxyExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The start-up probe writes, re-writes conditionally and deletes an object: a store that refuses
 * the second conditional write is accepted, one that overwrites is refused with one line naming
 * both ways out, unless single-writer mode was chosen; the probe leaves nothing behind.
 */
@ExtendWith(S3ProxyExtension.class)
class StoreGuaranteesAreProbedByWritingTest {

  @AfterEach
  void backToS3Proxy() throws Exception {
    System.clearProperty("keel.s3.singleWriter");
    S3ProxyExtension.start();
  }

  @Test
  void aStoreThatRefusesTheSecondConditionalPutIsSafeAndKeepsNoProbeObject() {
    S3Client s3 = S3ProxyExtension.client();
    String bucket = S3ProxyExtension.newBucket("probe-ok");
    StoreGuarantees g = StoreGuarantees.probe(s3, S3Uri.parse("s3://" + bucket + "/keel"));
    assertTrue(g.conditionalPut());
    assertTrue(g.probeMillis() >= 0);
    assertEquals(List.of(), keys(s3, bucket), "the probe object is deleted");
    assertTrue(
        StorageProbe.problemForWriting(StorageRoot.of("s3://" + bucket + "/keel")).isEmpty());
  }

  @Test
  void aStoreThatIgnoresIfNoneMatchIsRefusedForWritingUnlessSingleWriterModeIsOn()
      throws Exception {
    IgnoresIfNoneMatchS3 store = IgnoresIfNoneMatchS3.start();
    String bucket = store.newBucket("probe-unsafe");
    int dropped = store.droppedHeaders();
    StoreGuarantees g =
        StoreGuarantees.probe(store.client(), S3Uri.parse("s3://" + bucket + "/keel"));
    assertFalse(g.conditionalPut());
    assertEquals(dropped + 2, store.droppedHeaders(), "both probe writes were conditional");
    assertEquals(List.of(), keys(store.client(), bucket), "the probe object is deleted");

    store.pointAwsPropertiesHere();
    StorageRoot root = StorageRoot.of("s3://" + bucket + "/keel");
    assertTrue(
        StorageProbe.problem(root).isEmpty(), "it can be read: read-only commands still work");
    String problem = StorageProbe.problemForWriting(root).orElseThrow();
    assertTrue(
        problem.startsWith(
            "storage s3://"
                + bucket
                + "/keel: the S3 server ("
                + store.endpoint()
                + ") ignores If-None-Match on PUT"),
        problem);
    assertTrue(problem.contains("KEEL_S3_SINGLE_WRITER=true"), problem);
    assertFalse(problem.contains("\n"));

    System.setProperty("keel.s3.singleWriter", "true");
    assertTrue(StorageProbe.problemForWriting(root).isEmpty(), "the user chose single-writer mode");
  }

  @Test
  void aLocalRootMustBeWritable() throws Exception {
    Path dir = Files.createTempDirectory("keel-probe");
    assertTrue(
        StorageProbe.problemForWriting(StorageRoot.of(dir.resolve("new/root").toString()))
            .isEmpty());
    try (Stream<Path> left = Files.list(dir.resolve("new/root"))) {
      assertEquals(0, left.count(), "the probe file is deleted");
    }
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    String problem =
        StorageProbe.problemForWriting(StorageRoot.of(file.resolve("root").toString()))
            .orElseThrow();
    assertTrue(
        problem.startsWith("storage " + file.resolve("root").toUri() + ": cannot write there ("),
        problem);
  }

  private static List<String> keys(S3Client s3, String bucket) {
    return s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
        .map(S3Object::key)
        .toList();
  }
}
