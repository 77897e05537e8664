package dev.keel.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.GcRequest;
import dev.keel.api.v1.GcResult;
import dev.keel.storage.testing.FakeCheckpoints;
import dev.keel.storage.testing.TestDirs;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Checkpoint GC on a local checkpoint root. */
class CheckpointGcActivitiesImplTest {
  Path root;
  CheckpointStorage storage;
  CheckpointRef a;
  CheckpointRef b;
  CheckpointRef keep;

  @BeforeEach
  void setUp() throws IOException {
    root = TestDirs.create("gc").resolve("checkpoints");
    storage = new LocalCheckpointStorage(root);
    a = FakeCheckpoints.write(storage, "exp", "trial-1", "a", 4096);
    b = FakeCheckpoints.write(storage, "exp", "trial-2", "b", 1000);
    keep = FakeCheckpoints.write(storage, "exp", "trial-1", "keep", 2048);
  }

  static GcRequest gc(String experiment, CheckpointRef... refs) {
    return GcRequest.newBuilder().setExperimentId(experiment).addAllDelete(List.of(refs)).build();
  }

  @Test
  void deletesOnlyTheListedCheckpointsAndCountsTheirBytes() throws IOException {
    GcResult r = new CheckpointGcActivitiesImpl(storage).collect(gc("exp", a, b));
    assertEquals(2, r.getDeleted());
    assertEquals(a.getSizeBytes() + b.getSizeBytes(), r.getBytesFreed());
    assertFalse(Files.exists(root.resolve("exp/trial-1/a")));
    assertFalse(Files.exists(root.resolve("exp/trial-2/b")));
    assertDoesNotThrow(
        () -> VerifiedCheckpoint.open(storage, keep.getUri()), "the kept checkpoint is intact");
  }

  @Test
  void committedAndDeletedBytesAreCountedInTheProcessMetrics() throws IOException {
    double written = bytes("keel.checkpoint.written");
    CheckpointRef c = FakeCheckpoints.write(storage, "exp", "trial-3", "c", 3000);
    assertEquals((double) c.getSizeBytes(), bytes("keel.checkpoint.written") - written, 0.0);

    double deleted = bytes("keel.checkpoint.deleted");
    GcResult r = new CheckpointGcActivitiesImpl(storage).collect(gc("exp", a, c));
    assertEquals((double) r.getBytesFreed(), bytes("keel.checkpoint.deleted") - deleted, 0.0);
    assertTrue(r.getBytesFreed() > 7000, "both checkpoints' bytes: " + r.getBytesFreed());
  }

  private static double bytes(String counter) {
    return Metrics.globalRegistry.counter(counter).count();
  }

  static {
    // the global registry counts only through the registries in it: what a process exporting
    // metrics adds
    Metrics.addRegistry(new SimpleMeterRegistry());
  }

  @Test
  void rerunningTheSameCollectionIsANoOpThatFreesNothing() {
    CheckpointGcActivitiesImpl gc = new CheckpointGcActivitiesImpl(storage);
    gc.collect(gc("exp", a, b));
    GcResult again = gc.collect(gc("exp", a, b));
    assertEquals(2, again.getDeleted(), "already gone counts as deleted");
    assertEquals(0, again.getBytesFreed());
  }

  @Test
  void anInterruptedDeletionLeavesACheckpointNoReaderAccepts() throws IOException {
    long manifestBytes =
        Files.size(root.resolve("exp/trial-1/a").resolve(CheckpointFiles.MANIFEST));
    CheckpointStorage crashing =
        new LocalCheckpointStorage(
            root,
            () -> {
              throw new UncheckedIOException(new IOException("worker died"));
            });
    assertThrows(
        UncheckedIOException.class,
        () -> new CheckpointGcActivitiesImpl(crashing).collect(gc("exp", a)));
    assertTrue(
        Files.exists(root.resolve("exp/trial-1/a").resolve(CheckpointFiles.PARAMETERS)),
        "files remain");
    CorruptCheckpointException e =
        assertThrows(
            CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, a.getUri()));
    assertTrue(e.getMessage().contains("partial"), e.getMessage());

    GcResult retry = new CheckpointGcActivitiesImpl(storage).collect(gc("exp", a));
    assertEquals(
        a.getSizeBytes() - manifestBytes, retry.getBytesFreed(), "the retry frees the rest");
    assertFalse(Files.exists(root.resolve("exp/trial-1/a")));
  }

  @Test
  void checkpointsOutsideTheRootAreRefusedBeforeAnythingIsDeleted() throws IOException {
    Path outside = root.getParent().resolve("tables/fashion");
    Files.createDirectories(outside);
    CheckpointGcActivitiesImpl gc = new CheckpointGcActivitiesImpl(storage);
    for (String uri :
        List.of(
            outside.toUri().toString(),
            root.toUri() + "exp/../../tables/fashion",
            root.toUri().toString(),
            "s3://bucket/keel/checkpoints/exp/trial-1/a/",
            root.getParent().toString())) {
      CheckpointRef bad = CheckpointRef.newBuilder().setUuid("x").setUri(uri).build();
      ApplicationFailure f =
          assertThrows(ApplicationFailure.class, () -> gc.collect(gc("exp", a, bad)), uri);
      assertTrue(f.isNonRetryable());
      assertEquals(FailureTypes.CHECKPOINT_DELETION_REFUSED, f.getType());
      assertTrue(
          f.getOriginalMessage()
              .startsWith("refusing to delete " + uri + ": not inside the checkpoint root "),
          f.getOriginalMessage());
    }
    assertTrue(Files.isDirectory(outside));
    assertDoesNotThrow(() -> VerifiedCheckpoint.open(storage, a.getUri()), "nothing deleted");
    assertThrows(IllegalArgumentException.class, () -> storage.delete(outside.toString()));
  }

  @Test
  void aSymbolicLinkOutOfTheRootIsNotFollowed() throws IOException {
    Path elsewhere = Files.createDirectories(root.getParent().resolve("elsewhere/trial-9/x"));
    Files.writeString(elsewhere.resolve("precious"), "data");
    Files.createSymbolicLink(root.resolve("linked"), root.getParent().resolve("elsewhere"));
    CheckpointRef linked =
        CheckpointRef.newBuilder()
            .setUuid("x")
            .setUri(root.resolve("linked/trial-9/x").toString())
            .build();
    assertThrows(IllegalArgumentException.class, () -> storage.delete(linked.getUri()));
    assertTrue(Files.exists(elsewhere.resolve("precious")));
  }

  @Test
  void anotherExperimentsCheckpointIsRefused() {
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () -> new CheckpointGcActivitiesImpl(storage).collect(gc("other-exp", a)));
    assertTrue(f.isNonRetryable());
    assertTrue(
        f.getOriginalMessage().contains("belongs to experiment exp, not other-exp"),
        f.getOriginalMessage());
    assertDoesNotThrow(() -> VerifiedCheckpoint.open(storage, a.getUri()));
  }
}
