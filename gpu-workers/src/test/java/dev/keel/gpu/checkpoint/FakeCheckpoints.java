package dev.keel.gpu.checkpoint;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** Committed checkpoints with filler tensors but a real MANIFEST and metadata: cheap, and verifiable. */
final class FakeCheckpoints {
  private FakeCheckpoints() {}

  static CheckpointRef write(CheckpointStorage storage, String experiment, String trial, String uuid, int bytes)
      throws IOException {
    CheckpointMetadata md = new CheckpointMetadata(uuid, experiment, trial,
        ModelSpec.newBuilder().setName("fashion_cnn").build(), Map.of(), 1, 100, 32, 1000, "test",
        TableRef.newBuilder().setUri("file:///t").build(), 1, Map.of("searcher_metric", 0.5), "now");
    try (CheckpointStorage.StagedCheckpoint staged = storage.stage(experiment, trial, uuid)) {
      Path dir = staged.directory();
      byte[] filler = new byte[bytes];
      Arrays.fill(filler, (byte) uuid.hashCode());
      Files.write(dir.resolve(CheckpointFiles.PARAMETERS), filler);
      Files.write(dir.resolve(CheckpointFiles.OPTIMIZER), Arrays.copyOf(filler, bytes / 2));
      Files.write(dir.resolve(CheckpointFiles.METADATA), md.toJson());
      Manifest manifest = Manifest.of(dir, CheckpointFiles.REQUIRED);
      manifest.writeTo(dir);
      long size = manifest.totalBytes() + Files.size(dir.resolve(CheckpointFiles.MANIFEST));
      String uri = staged.commit();
      return CheckpointRef.newBuilder().setUuid(uuid).setUri(uri).setExperimentId(experiment).setTrialId(trial)
          .setBatches(100).setSizeBytes(size).build();
    }
  }
}
