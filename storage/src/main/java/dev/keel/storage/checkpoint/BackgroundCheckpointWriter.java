package dev.keel.storage.checkpoint;

import dev.keel.api.v1.CheckpointRef;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Writes checkpoints on one background thread, so training goes on while a snapshot's files are
 * hashed, fsynced or uploaded. At most one write is in flight: a new one first waits for the
 * previous, which bounds memory to two snapshots and keeps checkpoints committed in order.
 *
 * <p>A checkpoint counts only once {@link #poll()} or {@link #finish} has returned it: callers must
 * not report (heartbeat) a checkpoint before that, because until then it may not exist. A failed
 * write is rethrown by the next call. Not thread-safe: one training thread drives it.
 */
public final class BackgroundCheckpointWriter implements AutoCloseable {
  private final CheckpointWriter writer;
  private final ExecutorService thread;
  private Future<CheckpointRef> inFlight;
  private CompletableFuture<CheckpointMetadata> awaitedMetadata;

  public BackgroundCheckpointWriter(CheckpointStorage storage, String threadName) {
    this.writer = new CheckpointWriter(storage);
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts writing {@code snapshot}; first waits for the previous write.
   *
   * @return the previous checkpoint if it completed during this call (else empty)
   */
  public Optional<CheckpointRef> submit(CheckpointMetadata metadata, CheckpointSnapshot snapshot)
      throws IOException {
    Optional<CheckpointRef> previous = awaitInFlight();
    inFlight = thread.submit(() -> writer.write(metadata, snapshot));
    return previous;
  }

  /**
   * Starts writing {@code snapshot} before its metadata is known; {@link #finish} supplies it.
   *
   * @return the previous checkpoint if it completed during this call (else empty)
   */
  public Optional<CheckpointRef> submitAwaitingMetadata(
      String experimentId, String trialId, String uuid, CheckpointSnapshot snapshot)
      throws IOException {
    Optional<CheckpointRef> previous = awaitInFlight();
    CompletableFuture<CheckpointMetadata> metadata = new CompletableFuture<>();
    awaitedMetadata = metadata;
    inFlight = thread.submit(() -> writer.write(experimentId, trialId, uuid, snapshot, metadata));
    return previous;
  }

  /** The checkpoint whose write has completed since the last call, without waiting. */
  public Optional<CheckpointRef> poll() throws IOException {
    if (inFlight == null || !inFlight.isDone()) {
      return Optional.empty();
    }
    return awaitInFlight();
  }

  /** Gives the awaited metadata and waits until that checkpoint is committed. */
  public CheckpointRef finish(CheckpointMetadata metadata) throws IOException {
    if (awaitedMetadata == null) {
      throw new IllegalStateException("no checkpoint is waiting for its metadata");
    }
    awaitedMetadata.complete(metadata);
    awaitedMetadata = null;
    return awaitInFlight().orElseThrow();
  }

  /** Waits for the write in flight, if any. */
  public Optional<CheckpointRef> awaitInFlight() throws IOException {
    if (inFlight == null) {
      return Optional.empty();
    }
    Future<CheckpointRef> f = inFlight;
    inFlight = null;
    try {
      return Optional.of(f.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while a checkpoint was being written");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException("writing a checkpoint failed", cause);
    }
  }

  /**
   * Abandons a checkpoint still waiting for its metadata (nothing of it is committed), lets a write
   * already under way finish so no half-staged files stay behind, and stops the thread.
   */
  @Override
  public void close() {
    if (awaitedMetadata != null) {
      awaitedMetadata.cancel(false);
    }
    thread.shutdown();
    try {
      if (!thread.awaitTermination(5, TimeUnit.MINUTES)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
