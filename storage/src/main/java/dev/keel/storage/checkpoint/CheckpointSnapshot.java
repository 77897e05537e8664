package dev.keel.storage.checkpoint;

/**
 * A model's parameters and optimizer state serialized into memory at one batch, in the exact bytes
 * of the checkpoint files. Taking it costs a copy of the tensors; writing it out (files, checksums,
 * fsync or upload) can then happen on another thread while training moves on.
 */
public record CheckpointSnapshot(byte[] parameters, byte[] optimizerState) {

  public long sizeBytes() {
    return (long) parameters.length + optimizerState.length;
  }
}
