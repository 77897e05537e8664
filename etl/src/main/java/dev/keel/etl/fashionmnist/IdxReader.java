package dev.keel.etl.fashionmnist;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Reads the IDX files of (Fashion-)MNIST, gzipped or not. */
public final class IdxReader {
  private static final int IMAGES_MAGIC = 0x00000803;
  private static final int LABELS_MAGIC = 0x00000801;

  private IdxReader() {}

  /** Images as one array: {@code count*rows*cols} unsigned bytes; dims as {count, rows, cols}. */
  public static Images readImages(Path file) throws IOException {
    try (DataInputStream in = open(file)) {
      int magic = in.readInt();
      if (magic != IMAGES_MAGIC) {
        throw new IOException(file + ": not an IDX image file (magic 0x" + Integer.toHexString(magic) + ")");
      }
      int count = in.readInt();
      int rows = in.readInt();
      int cols = in.readInt();
      byte[] pixels = new byte[Math.multiplyExact(count, rows * cols)];
      in.readFully(pixels);
      return new Images(count, rows, cols, pixels);
    }
  }

  public static byte[] readLabels(Path file) throws IOException {
    try (DataInputStream in = open(file)) {
      int magic = in.readInt();
      if (magic != LABELS_MAGIC) {
        throw new IOException(file + ": not an IDX label file (magic 0x" + Integer.toHexString(magic) + ")");
      }
      byte[] labels = new byte[in.readInt()];
      in.readFully(labels);
      return labels;
    }
  }

  private static DataInputStream open(Path file) throws IOException {
    InputStream raw = Files.newInputStream(file);
    InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
    return new DataInputStream(new java.io.BufferedInputStream(in, 1 << 16));
  }

  /** Decoded IDX images. */
  public record Images(int count, int rows, int cols, byte[] pixels) {}
}
