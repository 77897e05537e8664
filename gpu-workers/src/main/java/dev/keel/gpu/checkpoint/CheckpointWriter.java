package dev.keel.gpu.checkpoint;

import ai.djl.nn.Block;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.optim.ResumableOptimizer;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a checkpoint atomically: data files, then the MANIFEST, then commit (local: fsync + rename;
 * S3: upload with the MANIFEST last).
 */
public final class CheckpointWriter {
  private final CheckpointStorage storage;

  public CheckpointWriter(CheckpointStorage storage) {
    this.storage = storage;
  }

  /** Saves {@code block}'s parameters and {@code optimizer}'s state under {@code metadata.uuid()}. */
  public CheckpointRef write(CheckpointMetadata metadata, Block block, ResumableOptimizer optimizer)
      throws IOException {
    try (CheckpointStorage.StagedCheckpoint staged =
        storage.stage(metadata.experimentId(), metadata.trialId(), metadata.uuid())) {
      Path dir = staged.directory();
      try (DataOutputStream out = open(dir.resolve(CheckpointFiles.PARAMETERS))) {
        block.saveParameters(out);
      }
      try (DataOutputStream out = open(dir.resolve(CheckpointFiles.OPTIMIZER))) {
        optimizer.saveState(out);
      }
      Files.write(dir.resolve(CheckpointFiles.METADATA), metadata.toJson());
      Manifest manifest = Manifest.of(dir, CheckpointFiles.REQUIRED);
      manifest.writeTo(dir);
      long manifestBytes = Files.size(dir.resolve(CheckpointFiles.MANIFEST));
      String uri = staged.commit();
      return CheckpointRef.newBuilder()
          .setUuid(metadata.uuid())
          .setUri(uri)
          .setExperimentId(metadata.experimentId())
          .setTrialId(metadata.trialId())
          .setBatches(metadata.batches())
          .putAllMetrics(metadata.metrics())
          .setSizeBytes(manifest.totalBytes() + manifestBytes)
          .build();
    }
  }

  private static DataOutputStream open(Path file) throws IOException {
    return new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
  }
}
