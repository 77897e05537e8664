package dev.keel.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.GcResult;
import dev.keel.storage.testing.FakeCheckpoints;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.storage.testing.TestDirs;
import io.temporal.failure.ApplicationFailure;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Checkpoint GC on an s3:// checkpoint root (embedded S3Proxy on 127.0.0.1). */
@ExtendWith(S3ProxyExtension.class)
class CheckpointGcOnS3Test {
  String bucket;
  String rootUri;
  Path cache;
  S3CheckpointStorage storage;
  CheckpointRef a;
  CheckpointRef keep;

  @BeforeEach
  void setUp() throws Exception {
    bucket = S3ProxyExtension.newBucket("gc");
    rootUri = "s3://" + bucket + "/keel/checkpoints";
    cache = TestDirs.create("gc-cache");
    storage = new S3CheckpointStorage(rootUri, S3ProxyExtension.client(), cache);
    a = FakeCheckpoints.write(storage, "exp", "trial-1", "a", 4096);
    keep = FakeCheckpoints.write(storage, "exp", "trial-1", "a2", 2048); // shares the prefix "…/a"
  }

  List<String> keys() {
    return S3ProxyExtension.client()
        .listObjectsV2Paginator(b -> b.bucket(bucket))
        .contents()
        .stream()
        .map(S3Object::key)
        .sorted()
        .collect(Collectors.toList());
  }

  @Test
  void deletesOnlyTheListedCheckpointAndRerunningFreesNothing() {
    assertDoesNotThrow(() -> VerifiedCheckpoint.open(storage, a.getUri())); // fills the local cache
    CheckpointGcActivitiesImpl gc = new CheckpointGcActivitiesImpl(storage);
    GcResult r = gc.collect(CheckpointGcActivitiesImplTest.gc("exp", a));
    assertEquals(1, r.getDeleted());
    assertEquals(a.getSizeBytes(), r.getBytesFreed());
    assertTrue(
        keys().stream().noneMatch(k -> k.startsWith("keel/checkpoints/exp/trial-1/a/")),
        keys().toString());
    assertEquals(
        4, keys().stream().filter(k -> k.startsWith("keel/checkpoints/exp/trial-1/a2/")).count());
    assertDoesNotThrow(() -> VerifiedCheckpoint.open(storage, keep.getUri()));
    assertThrows(
        CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, a.getUri()));
    assertTrue(
        !cache.resolve(bucket).resolve("keel/checkpoints/exp/trial-1/a").toFile().exists(),
        "cache dropped");

    GcResult again = gc.collect(CheckpointGcActivitiesImplTest.gc("exp", a));
    assertEquals(1, again.getDeleted());
    assertEquals(0, again.getBytesFreed());
  }

  @Test
  void anInterruptedDeletionRemovesTheManifestFirstSoTheRestIsNeverReadAsValid() {
    List<String> deleted = new ArrayList<>();
    S3Client real = S3ProxyExtension.client();
    S3Client failing =
        (S3Client)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("deleteObject")) {
                    DeleteObjectRequest req =
                        args[0] instanceof DeleteObjectRequest d ? d : build(args[0]);
                    if (!deleted.isEmpty()) {
                      throw SdkClientException.create("connection reset");
                    }
                    deleted.add(req.key());
                    return real.deleteObject(req);
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    S3CheckpointStorage crashing = new S3CheckpointStorage(rootUri, failing, cache);
    assertThrows(
        UncheckedIOException.class,
        () ->
            new CheckpointGcActivitiesImpl(crashing)
                .collect(CheckpointGcActivitiesImplTest.gc("exp", a)));
    assertEquals(List.of("keel/checkpoints/exp/trial-1/a/" + CheckpointFiles.MANIFEST), deleted);
    CorruptCheckpointException e =
        assertThrows(
            CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, a.getUri()));
    assertTrue(e.getMessage().contains("partial"), e.getMessage());

    GcResult retry =
        new CheckpointGcActivitiesImpl(storage)
            .collect(CheckpointGcActivitiesImplTest.gc("exp", a));
    assertTrue(retry.getBytesFreed() > 6000, "the rest: " + retry.getBytesFreed());
    assertTrue(
        keys().stream().noneMatch(k -> k.startsWith("keel/checkpoints/exp/trial-1/a/")),
        keys().toString());
  }

  @SuppressWarnings("unchecked")
  private static DeleteObjectRequest build(Object consumer) {
    DeleteObjectRequest.Builder b = DeleteObjectRequest.builder();
    ((Consumer<DeleteObjectRequest.Builder>) consumer).accept(b);
    return b.build();
  }

  @Test
  void objectsOutsideTheCheckpointRootAreRefused() {
    CheckpointGcActivitiesImpl gc = new CheckpointGcActivitiesImpl(storage);
    for (String uri :
        List.of(
            "s3://" + bucket + "/keel/tables/fashion/",
            "s3://other-bucket/keel/checkpoints/exp/t/a/",
            "s3://" + bucket + "/keel/checkpoints-old/exp/t/a/",
            rootUri + "/",
            rootUri + "/exp/../../tables/",
            "file:///tmp/keel/checkpoints/exp/t/a/")) {
      CheckpointRef bad = CheckpointRef.newBuilder().setUuid("x").setUri(uri).build();
      ApplicationFailure f =
          assertThrows(
              ApplicationFailure.class,
              () -> gc.collect(CheckpointGcActivitiesImplTest.gc("exp", a, bad)),
              uri);
      assertTrue(f.isNonRetryable());
      assertEquals(FailureTypes.CHECKPOINT_DELETION_REFUSED, f.getType());
    }
    assertDoesNotThrow(() -> VerifiedCheckpoint.open(storage, a.getUri()), "nothing deleted");
  }
}
