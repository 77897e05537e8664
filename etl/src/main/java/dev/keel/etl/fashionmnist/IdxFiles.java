package dev.keel.etl.fashionmnist;

import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a (Fashion-)MNIST split ({@code train} or {@code t10k}) from IDX files, ids = row numbers.
 */
public final class IdxFiles {
  private IdxFiles() {}

  public static LabeledImages read(Path dir, String prefix) throws IOException {
    Path images = pick(dir, prefix + "-images-idx3-ubyte");
    Path labels = pick(dir, prefix + "-labels-idx1-ubyte");
    IdxReader.Images img = IdxReader.readImages(images);
    byte[] lab = IdxReader.readLabels(labels);
    long[] ids = new long[lab.length];
    int[] ints = new int[lab.length];
    for (int i = 0; i < lab.length; i++) {
      ids[i] = i;
      ints[i] = lab[i] & 0xFF;
    }
    return new LabeledImages(ids, ints, img.pixels(), img.rows(), img.cols());
  }

  private static Path pick(Path dir, String base) throws IOException {
    Path gz = dir.resolve(base + ".gz");
    if (Files.exists(gz)) {
      return gz;
    }
    Path raw = dir.resolve(base);
    if (Files.exists(raw)) {
      return raw;
    }
    throw new NoSuchFileException(gz.toString());
  }
}
