package dev.keel.gpu.checkpoint;

import ai.djl.nn.Block;
import dev.keel.gpu.optim.ResumableOptimizer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A model's parameters and optimizer state serialized into memory at one batch, in the exact bytes
 * of the checkpoint files. Taking it costs a copy of the tensors; writing it out (files, checksums,
 * fsync or upload) can then happen on another thread while training moves on.
 */
public record CheckpointSnapshot(byte[] parameters, byte[] optimizerState) {

  /** Serializes {@code block}'s parameters and {@code optimizer}'s state as they are now. */
  public static CheckpointSnapshot of(Block block, ResumableOptimizer optimizer) throws IOException {
    ByteArrayOutputStream params = new ByteArrayOutputStream(1 << 20);
    try (DataOutputStream out = new DataOutputStream(params)) {
      block.saveParameters(out);
    }
    ByteArrayOutputStream state = new ByteArrayOutputStream(1 << 20);
    try (DataOutputStream out = new DataOutputStream(state)) {
      optimizer.saveState(out);
    }
    return new CheckpointSnapshot(params.toByteArray(), state.toByteArray());
  }

  public long sizeBytes() {
    return (long) parameters.length + optimizerState.length;
  }
}
