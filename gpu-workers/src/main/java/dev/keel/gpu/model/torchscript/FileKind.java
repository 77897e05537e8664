package dev.keel.gpu.model.torchscript;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Tells a TorchScript archive from the files users mistake for one, so that a wrong file is named
 * with what it is and how to export the right one instead of libtorch's loader error.
 */
final class FileKind {
  static final String HOW_TO_EXPORT =
      "export the model with torch.jit.script(model).save(path) (or torch.jit.trace(model,"
          + " example).save(path))";

  private FileKind() {}

  /** Empty for a TorchScript archive, else what the file is instead. */
  static Optional<String> notTorchScript(byte[] bytes) {
    if (bytes.length == 0) {
      return Optional.of("is empty");
    }
    if (isZip(bytes)) {
      Optional<List<String>> names = zipNames(bytes);
      if (names.isEmpty()) {
        return Optional.of("is a damaged zip archive (no readable central directory)");
      }
      boolean code = false;
      boolean pickle = false;
      for (String name : names.get()) {
        code |= name.contains("/code/") || name.endsWith("/constants.pkl");
        pickle |= name.endsWith("/data.pkl");
      }
      if (code) {
        return Optional.empty();
      }
      return Optional.of(
          pickle
              ? "is a torch.save file (a pickled state_dict or module), not TorchScript"
              : "is a zip archive, but not a TorchScript one");
    }
    if ((bytes[0] & 0xff) == 0x80) {
      return Optional.of("is a pickle (torch.save with the legacy format), not TorchScript");
    }
    if (bytes.length > 2 && bytes[0] == 0x08 && looksLikeOnnx(bytes)) {
      return Optional.of("looks like an ONNX model (Keel trains TorchScript, not ONNX)");
    }
    return Optional.of("is not a TorchScript archive");
  }

  /**
   * The entry names of a zip archive's central directory. PyTorch writes entries with data
   * descriptors, which a streaming reader cannot skip, so the directory at the end is read.
   */
  private static Optional<List<String>> zipNames(byte[] b) {
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    for (int end = b.length - 22; end >= Math.max(0, b.length - 22 - 65535); end--) {
      if (buf.getInt(end) != 0x06054b50) {
        continue;
      }
      int entries = Short.toUnsignedInt(buf.getShort(end + 10));
      long offset = Integer.toUnsignedLong(buf.getInt(end + 16));
      List<String> names = new ArrayList<>();
      int at = (int) Math.min(offset, b.length);
      for (int i = 0; i < entries; i++) {
        if (at + 46 > b.length || buf.getInt(at) != 0x02014b50) {
          return Optional.empty();
        }
        int nameLength = Short.toUnsignedInt(buf.getShort(at + 28));
        int extra = Short.toUnsignedInt(buf.getShort(at + 30));
        int comment = Short.toUnsignedInt(buf.getShort(at + 32));
        if (at + 46 + nameLength > b.length) {
          return Optional.empty();
        }
        names.add(new String(b, at + 46, nameLength, StandardCharsets.UTF_8));
        at += 46 + nameLength + extra + comment;
      }
      return Optional.of(names);
    }
    return Optional.empty();
  }

  private static boolean isZip(byte[] b) {
    return b.length >= 4 && b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4;
  }

  /** An ONNX ModelProto starts with ir_version (field 1) and names its producer (field 2). */
  private static boolean looksLikeOnnx(byte[] b) {
    int i = 1;
    while (i < b.length && (b[i] & 0x80) != 0) {
      i++;
    }
    return i + 1 < b.length && b[i + 1] == 0x12;
  }
}
