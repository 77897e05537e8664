package dev.keel.storage.testing;

import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.checkpoint.CheckpointMetadata;
import dev.keel.storage.checkpoint.CheckpointSnapshot;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.CheckpointWriter;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

/**
 * Committed checkpoints with filler tensors but a real MANIFEST and metadata: cheap, and
 * verifiable.
 */
public final class FakeCheckpoints {
  private FakeCheckpoints() {}

  public static CheckpointRef write(
      CheckpointStorage storage, String experiment, String trial, String uuid, int bytes)
      throws IOException {
    return new CheckpointWriter(storage)
        .write(
            metadata(experiment, trial, uuid, Map.of(CheckpointMetrics.SEARCHER_METRIC, 0.5)),
            snapshot(uuid, bytes));
  }

  public static CheckpointMetadata metadata(
      String experiment, String trial, String uuid, Map<String, Double> metrics) {
    return new CheckpointMetadata(
        uuid,
        experiment,
        trial,
        ModelSpec.newBuilder().setName("fashion_cnn").build(),
        Map.of(),
        1,
        100,
        32,
        1000,
        "test",
        TableRef.newBuilder().setUri("file:///t").build(),
        1,
        metrics,
        "now");
  }

  public static CheckpointSnapshot snapshot(String uuid, int bytes) {
    byte[] filler = new byte[bytes];
    Arrays.fill(filler, (byte) uuid.hashCode());
    return new CheckpointSnapshot(filler, Arrays.copyOf(filler, bytes / 2));
  }
}
