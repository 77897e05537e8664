package dev.keel.gpu.torch;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.storage.checkpoint.CheckpointFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** A TorchScript trial's checkpoint as a file stock PyTorch loads. */
final class TorchScriptCheckpoints {
  private TorchScriptCheckpoints() {}

  /**
   * The checkpoint's PARAMETERS file is DJL's version byte and a length ahead of the module's zip
   * archive; the archive alone is what {@code torch.jit.load} reads.
   */
  static Path moduleFile(CheckpointRef checkpoint, Path out) throws IOException {
    byte[] bytes =
        Files.readAllBytes(
            Path.of(URI.create(checkpoint.getUri())).resolve(CheckpointFiles.PARAMETERS));
    for (int i = 0; i + 4 <= bytes.length; i++) {
      if (bytes[i] == 'P' && bytes[i + 1] == 'K' && bytes[i + 2] == 3 && bytes[i + 3] == 4) {
        Files.createDirectories(out.toAbsolutePath().getParent());
        return Files.write(out, Arrays.copyOfRange(bytes, i, bytes.length));
      }
    }
    throw new AssertionError(checkpoint.getUri() + "'s parameters hold no zip archive");
  }
}
