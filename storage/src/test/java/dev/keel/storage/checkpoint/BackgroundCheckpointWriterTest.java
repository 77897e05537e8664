package dev.keel.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.storage.testing.FakeCheckpoints;
import dev.keel.storage.testing.TestDirs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints written in the background are reported only once committed, in order, and a write
 * that fails or is abandoned leaves nothing behind.
 */
class BackgroundCheckpointWriterTest {
  private Path root;
  private GatedStorage storage;

  @BeforeEach
  void setUp() throws IOException {
    root = TestDirs.create("background-ckpt");
    storage = new GatedStorage(new LocalCheckpointStorage(root));
  }

  private List<Path> trialDirectory() throws IOException {
    Path dir = root.resolve("exp").resolve("trial-1");
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }

  @Test
  void aCheckpointIsReportedOnlyOnceItIsCommitted() throws Exception {
    storage.gate = new CountDownLatch(1);
    try (BackgroundCheckpointWriter writer =
        new BackgroundCheckpointWriter(storage, "test-writer")) {
      CheckpointSnapshot snapshot = FakeCheckpoints.snapshot("a", 3000);
      assertEquals(
          Optional.empty(),
          writer.submit(FakeCheckpoints.metadata("exp", "trial-1", "a", Map.of()), snapshot));
      assertTrue(
          storage.commitReached.await(30, TimeUnit.SECONDS), "the write never reached its commit");
      assertEquals(Optional.empty(), writer.poll(), "reported before it was committed");
      assertFalse(Files.exists(root.resolve("exp/trial-1/a")));

      storage.gate.countDown();
      CheckpointRef ref = writer.awaitInFlight().orElseThrow();
      VerifiedCheckpoint ck = VerifiedCheckpoint.open(ref);
      assertEquals("a", ck.metadata().uuid());
      Path dir = Path.of(URI.create(ref.getUri()));
      assertArrayEquals(
          snapshot.parameters(), Files.readAllBytes(dir.resolve(CheckpointFiles.PARAMETERS)));
      assertArrayEquals(
          snapshot.optimizerState(), Files.readAllBytes(dir.resolve(CheckpointFiles.OPTIMIZER)));
      assertEquals(Optional.empty(), writer.poll(), "reported twice");
    }
  }

  @Test
  void aNewCheckpointWaitsForThePreviousSoTheyCommitInOrder() throws Exception {
    try (BackgroundCheckpointWriter writer =
        new BackgroundCheckpointWriter(storage, "test-writer")) {
      writer.submit(
          FakeCheckpoints.metadata("exp", "trial-1", "first", Map.of()),
          FakeCheckpoints.snapshot("first", 100));
      Optional<CheckpointRef> previous =
          writer.submit(
              FakeCheckpoints.metadata("exp", "trial-1", "second", Map.of()),
              FakeCheckpoints.snapshot("second", 100));
      assertEquals("first", previous.orElseThrow().getUuid());
      assertEquals("second", writer.awaitInFlight().orElseThrow().getUuid());
      assertEquals(List.of("first", "second"), storage.committed);
    }
  }

  @Test
  void theFinalCheckpointIsWrittenBeforeItsMetadataIsKnownAndCarriesIt() throws Exception {
    try (BackgroundCheckpointWriter writer =
        new BackgroundCheckpointWriter(storage, "test-writer")) {
      writer.submitAwaitingMetadata(
          "exp", "trial-1", "final", FakeCheckpoints.snapshot("final", 500));
      assertTrue(
          storage.stagedFiles.await(30, TimeUnit.SECONDS)); // data files are written meanwhile
      CheckpointRef ref =
          writer.finish(
              FakeCheckpoints.metadata(
                  "exp", "trial-1", "final", Map.of("validation_accuracy", 0.75)));
      assertEquals(0.75, ref.getMetricsOrThrow("validation_accuracy"));
      assertEquals(
          0.75, VerifiedCheckpoint.open(ref).metadata().metrics().get("validation_accuracy"));
    }
  }

  @Test
  void aCheckpointAbandonedBeforeItsMetadataLeavesNothingBehind() throws Exception {
    try (BackgroundCheckpointWriter writer =
        new BackgroundCheckpointWriter(storage, "test-writer")) {
      writer.submitAwaitingMetadata(
          "exp", "trial-1", "never", FakeCheckpoints.snapshot("never", 500));
      assertTrue(storage.stagedFiles.await(30, TimeUnit.SECONDS));
    } // e.g. validation threw
    assertEquals(List.of(), trialDirectory(), "staged files left behind");
    assertEquals(List.of(), storage.committed);
  }

  @Test
  void aFailedWriteIsRethrownToTheTrainerAndLeavesNoStagingBehind() throws Exception {
    storage.failCommit = true;
    try (BackgroundCheckpointWriter writer =
        new BackgroundCheckpointWriter(storage, "test-writer")) {
      writer.submit(
          FakeCheckpoints.metadata("exp", "trial-1", "full", Map.of()),
          FakeCheckpoints.snapshot("full", 100));
      IOException e = assertThrows(IOException.class, writer::awaitInFlight);
      assertEquals("No space left on device", e.getMessage());
    }
    assertEquals(List.of(), trialDirectory());
  }

  /** Local storage whose commits can be held at a gate, or fail like a full disk. */
  private static final class GatedStorage implements CheckpointStorage {
    private final CheckpointStorage delegate;
    final CountDownLatch commitReached = new CountDownLatch(1);
    final CountDownLatch stagedFiles = new CountDownLatch(1);
    final List<String> committed = new CopyOnWriteArrayList<>();
    volatile CountDownLatch gate = new CountDownLatch(0);
    volatile boolean failCommit;

    GatedStorage(CheckpointStorage delegate) {
      this.delegate = delegate;
    }

    @Override
    public String rootUri() {
      return delegate.rootUri();
    }

    @Override
    public StagedCheckpoint stage(String experimentId, String trialId, String uuid)
        throws IOException {
      StagedCheckpoint staged = delegate.stage(experimentId, trialId, uuid);
      return new StagedCheckpoint() {
        @Override
        public Path directory() {
          // the writer has started on this checkpoint's files
          Path dir = staged.directory();
          stagedFiles.countDown();
          return dir;
        }

        @Override
        public String commit() throws IOException {
          commitReached.countDown();
          try {
            gate.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
          }
          if (failCommit) {
            throw new IOException("No space left on device");
          }
          String uri = staged.commit();
          committed.add(uuid);
          return uri;
        }

        @Override
        public void close() throws IOException {
          staged.close();
        }
      };
    }

    @Override
    public Path localDirectory(String uri) throws IOException {
      return delegate.localDirectory(uri);
    }

    @Override
    public boolean contains(String uri) {
      return delegate.contains(uri);
    }

    @Override
    public long delete(String uri) throws IOException {
      return delegate.delete(uri);
    }
  }
}
