package dev.keel.etl.fashionmnist;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/** Reads the IDX files of (Fashion-)MNIST, gzipped or not. */
public final class IdxReader {
  private static final int IMAGES_MAGIC = 0x00000803;
  private static final int LABELS_MAGIC = 0x00000801;

  private IdxReader() {}

  /** Images as one array: {@code count*rows*cols} unsigned bytes; dims as {count, rows, cols}. */
  public static Images readImages(Path file) throws IOException {
    Images images = readImagesLenient(file);
    if (images.count() < images.declared()) {
      throw new EOFException(
          file + ": truncated after " + images.count() + " of " + images.declared() + " images");
    }
    return images;
  }

  public static byte[] readLabels(Path file) throws IOException {
    Labels labels = readLabelsLenient(file);
    if (labels.values().length < labels.declared()) {
      throw new EOFException(
          file
              + ": truncated after "
              + labels.values().length
              + " of "
              + labels.declared()
              + " labels");
    }
    return labels.values();
  }

  /**
   * Like {@link #readImages} but a file that ends early (truncated download, cut gzip stream)
   * yields the complete images before the end; {@link Images#declared()} keeps the header's count.
   */
  public static Images readImagesLenient(Path file) throws IOException {
    try (DataInputStream in = open(file)) {
      int magic = in.readInt();
      if (magic != IMAGES_MAGIC) {
        throw new IOException(
            file + ": not an IDX image file (magic 0x" + Integer.toHexString(magic) + ")");
      }
      int count = in.readInt();
      int rows = in.readInt();
      int cols = in.readInt();
      int size = rows * cols;
      byte[] pixels = new byte[Math.multiplyExact(count, size)];
      int read = 0;
      while (read < count && readFully(in, pixels, read * size, size)) {
        read++;
      }
      return new Images(
          /* count= */ read,
          rows,
          cols,
          read == count ? pixels : Arrays.copyOf(pixels, read * size),
          /* declared= */ count);
    }
  }

  /** Labels of a file that may end early; the array is as long as the complete labels read. */
  public static Labels readLabelsLenient(Path file) throws IOException {
    try (DataInputStream in = open(file)) {
      int magic = in.readInt();
      if (magic != LABELS_MAGIC) {
        throw new IOException(
            file + ": not an IDX label file (magic 0x" + Integer.toHexString(magic) + ")");
      }
      int count = in.readInt();
      byte[] labels = new byte[count];
      int read = 0;
      while (read < count) {
        int r = readSome(in, labels, read, count - read);
        if (r <= 0) {
          break;
        }
        read += r;
      }
      return new Labels(read == count ? labels : Arrays.copyOf(labels, read), count);
    }
  }

  /** True when all {@code len} bytes were read; false at the end of the (possibly cut) stream. */
  private static boolean readFully(DataInputStream in, byte[] b, int off, int len) {
    int done = 0;
    while (done < len) {
      int r = readSome(in, b, off + done, len - done);
      if (r <= 0) {
        return false;
      }
      done += r;
    }
    return true;
  }

  /** -1 at the end, including a gzip stream cut short ("Unexpected end of ZLIB input stream"). */
  private static int readSome(DataInputStream in, byte[] b, int off, int len) {
    try {
      return in.read(b, off, len);
    } catch (IOException e) {
      return -1;
    }
  }

  private static DataInputStream open(Path file) throws IOException {
    InputStream raw = Files.newInputStream(file);
    InputStream in =
        file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
    return new DataInputStream(new BufferedInputStream(in, 1 << 16));
  }

  /**
   * Decoded IDX images; {@code declared} is the header's count (more than {@code count} when
   * truncated).
   */
  public record Images(int count, int rows, int cols, byte[] pixels, int declared) {
    public Images(int count, int rows, int cols, byte[] pixels) {
      this(count, rows, cols, pixels, count);
    }
  }

  /** Decoded IDX labels; {@code declared} is the header's count. */
  public record Labels(byte[] values, int declared) {}
}
