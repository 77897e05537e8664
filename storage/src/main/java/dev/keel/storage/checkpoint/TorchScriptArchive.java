package dev.keel.storage.checkpoint;

import java.nio.ByteBuffer;

/**
 * The parameters file of a TorchScript model's checkpoint is the whole module as DJL writes it: a
 * format byte, the archive's length (8 bytes, big-endian), then the TorchScript zip archive that
 * {@code torch.jit.load} reads. This module knows no DJL, only that layout.
 */
public final class TorchScriptArchive {
  private static final int FORMAT = 1;
  private static final int HEADER = 1 + Long.BYTES;

  private TorchScriptArchive() {}

  /**
   * @param location the checkpoint, for messages
   * @throws CorruptCheckpointException when the file is not laid out so
   */
  public static byte[] unwrap(byte[] parameters, String location) {
    if (parameters.length < HEADER + 4
        || parameters[0] != FORMAT
        || ByteBuffer.wrap(parameters, 1, Long.BYTES).getLong() != parameters.length - HEADER
        || parameters[HEADER] != 'P'
        || parameters[HEADER + 1] != 'K') {
      throw new CorruptCheckpointException(
          location, CheckpointFiles.PARAMETERS, "does not hold a TorchScript module");
    }
    byte[] archive = new byte[parameters.length - HEADER];
    System.arraycopy(parameters, HEADER, archive, 0, archive.length);
    return archive;
  }
}
