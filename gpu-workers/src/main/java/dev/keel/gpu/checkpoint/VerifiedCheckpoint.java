package dev.keel.gpu.checkpoint;

import ai.djl.MalformedModelException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.optim.ResumableOptimizer;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A checkpoint whose MANIFEST has been verified (every file present with the recorded size and
 * SHA-256) and whose metadata parsed. Loading parameters restores requires-grad, which DJL's
 * {@code loadParameters} drops.
 */
public final class VerifiedCheckpoint {
  private final String uri;
  private final Path dir;
  private final Manifest manifest;
  private final CheckpointMetadata metadata;

  private VerifiedCheckpoint(String uri, Path dir, Manifest manifest, CheckpointMetadata metadata) {
    this.uri = uri;
    this.dir = dir;
    this.manifest = manifest;
    this.metadata = metadata;
  }

  /** @throws CorruptCheckpointException if the checkpoint is missing, partial or corrupt */
  public static VerifiedCheckpoint open(CheckpointStorage storage, String uri) throws IOException {
    Path dir = storage.localDirectory(uri);
    Manifest manifest = Manifest.verify(dir, uri, CheckpointFiles.REQUIRED);
    CheckpointMetadata metadata;
    try {
      metadata = CheckpointMetadata.fromJson(Files.readAllBytes(dir.resolve(CheckpointFiles.METADATA)));
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(uri, CheckpointFiles.METADATA, "unreadable: " + e.getMessage(), e);
    }
    return new VerifiedCheckpoint(uri, dir, manifest, metadata);
  }

  /** Opens {@code ref.uri} with the storage for its location. */
  public static VerifiedCheckpoint open(CheckpointRef ref) throws IOException {
    return open(CheckpointStorage.forRoot(ref.getUri()), ref.getUri());
  }

  public String uri() {
    return uri;
  }

  public CheckpointMetadata metadata() {
    return metadata;
  }

  public long sizeBytes() {
    return manifest.totalBytes();
  }

  public CheckpointRef ref() {
    return CheckpointRef.newBuilder()
        .setUuid(metadata.uuid())
        .setUri(uri)
        .setExperimentId(metadata.experimentId())
        .setTrialId(metadata.trialId())
        .setBatches(metadata.batches())
        .putAllMetrics(metadata.metrics())
        .setSizeBytes(sizeBytes())
        .build();
  }

  /**
   * Replaces the values of {@code block}'s (initialized) parameters, keeping their shapes, and
   * frees the arrays they replace.
   *
   * @throws CorruptCheckpointException if the saved parameters do not fit this block
   */
  public void loadParameters(Block block, NDManager manager) throws IOException {
    List<Pair<String, Parameter>> params = new ArrayList<>();
    block.getParameters().forEach(params::add);
    List<NDArray> before = new ArrayList<>();
    List<Shape> shapes = new ArrayList<>();
    for (Pair<String, Parameter> p : params) {
      before.add(p.getValue().isInitialized() ? p.getValue().getArray() : null);
      shapes.add(p.getValue().isInitialized() ? p.getValue().getArray().getShape() : null);
    }
    try (DataInputStream in = open(CheckpointFiles.PARAMETERS)) {
      block.loadParameters(manager, in);
    } catch (MalformedModelException | IOException | RuntimeException e) {
      throw new CorruptCheckpointException(
          uri, CheckpointFiles.PARAMETERS, "does not fit this model: " + e.getMessage(), e);
    }
    for (int i = 0; i < params.size(); i++) {
      Parameter param = params.get(i).getValue();
      NDArray now = param.getArray();
      if (shapes.get(i) != null && !shapes.get(i).equals(now.getShape())) {
        throw new CorruptCheckpointException(
            uri, CheckpointFiles.PARAMETERS,
            "parameter " + params.get(i).getKey() + " has shape " + now.getShape()
                + ", the model expects " + shapes.get(i) + " (different hyperparameters?)");
      }
      if (param.requiresGradient()) {
        now.setRequiresGradient(true);
      }
      NDArray old = before.get(i);
      if (old != null && old != now) {
        old.close();
      }
    }
  }

  /** Restores the optimizer's moments / momentum and step counts. */
  public void loadOptimizerState(ResumableOptimizer optimizer, NDManager manager) {
    try (DataInputStream in = open(CheckpointFiles.OPTIMIZER)) {
      optimizer.loadState(manager, in);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(uri, CheckpointFiles.OPTIMIZER, "unreadable: " + e.getMessage(), e);
    }
  }

  private DataInputStream open(String name) throws IOException {
    return new DataInputStream(new BufferedInputStream(Files.newInputStream(dir.resolve(name)), 1 << 16));
  }
}
