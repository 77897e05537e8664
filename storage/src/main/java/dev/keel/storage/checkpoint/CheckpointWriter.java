package dev.keel.storage.checkpoint;

import dev.keel.api.v1.CheckpointRef;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Writes a checkpoint atomically: data files, then the metadata and the MANIFEST, then commit
 * (local: fsync + rename; S3: upload with the MANIFEST last).
 */
public final class CheckpointWriter {
  private final CheckpointStorage storage;

  public CheckpointWriter(CheckpointStorage storage) {
    this.storage = storage;
  }

  /** Saves a snapshot under {@code metadata.uuid()}. */
  public CheckpointRef write(CheckpointMetadata metadata, CheckpointSnapshot snapshot)
      throws IOException {
    return write(
        metadata.experimentId(),
        metadata.trialId(),
        metadata.uuid(),
        snapshot,
        CompletableFuture.completedFuture(metadata));
  }

  /**
   * Saves a snapshot whose metadata may not be known yet (the final checkpoint's validation
   * metrics): the data files are written first, then this waits for {@code metadata}. If {@code
   * metadata} fails or is cancelled nothing is committed.
   */
  public CheckpointRef write(
      String experimentId,
      String trialId,
      String uuid,
      CheckpointSnapshot snapshot,
      Future<CheckpointMetadata> metadata)
      throws IOException {
    try (CheckpointStorage.StagedCheckpoint staged = storage.stage(experimentId, trialId, uuid)) {
      Path dir = staged.directory();
      Files.write(dir.resolve(CheckpointFiles.PARAMETERS), snapshot.parameters());
      Files.write(dir.resolve(CheckpointFiles.OPTIMIZER), snapshot.optimizerState());
      CheckpointMetadata md = await(metadata, uuid);
      Files.write(dir.resolve(CheckpointFiles.METADATA), md.toJson());
      Manifest manifest = Manifest.of(dir, CheckpointFiles.REQUIRED);
      manifest.writeTo(dir);
      long manifestBytes = Files.size(dir.resolve(CheckpointFiles.MANIFEST));
      String uri = staged.commit();
      CheckpointMeters.BYTES_WRITTEN.increment((double) (manifest.totalBytes() + manifestBytes));
      return CheckpointRef.newBuilder()
          .setUuid(md.uuid())
          .setUri(uri)
          .setExperimentId(md.experimentId())
          .setTrialId(md.trialId())
          .setBatches(md.batches())
          .putAllMetrics(md.metrics())
          .setSizeBytes(manifest.totalBytes() + manifestBytes)
          .build();
    }
  }

  private static CheckpointMetadata await(Future<CheckpointMetadata> metadata, String uuid)
      throws IOException {
    try {
      CheckpointMetadata md = metadata.get();
      if (!md.uuid().equals(uuid)) {
        throw new IllegalArgumentException(
            "metadata of checkpoint " + md.uuid() + " given for " + uuid);
      }
      return md;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "checkpoint " + uuid + " abandoned before its metadata was known");
    } catch (ExecutionException | CancellationException e) {
      throw new IOException("checkpoint " + uuid + " abandoned: its metadata never came", e);
    }
  }
}
