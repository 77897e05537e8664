package dev.keel.etl.testing;

import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.tables.dataset.LabeledImages;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Real Fashion-MNIST test images (the t10k split), written as the files the ETL reads: PNG and JPEG
 * images, and tabular rows of 16 features (the means of the 7x7 blocks of each image).
 */
public final class RealData {
  public static final Path FASHION = Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR);
  private static LabeledImages t10k;

  private RealData() {}

  public static synchronized LabeledImages t10k() {
    if (t10k == null) {
      try {
        t10k = IdxFiles.read(FASHION, "t10k");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return t10k;
  }

  /** A file-system-friendly class name ("T-shirt/top" has a slash). */
  public static String className(int label) {
    return IngestActivitiesImpl.FASHION_MNIST_CLASSES
        .get(label)
        .replace('/', '_')
        .replace(' ', '_');
  }

  public static byte[] pixels(int i) {
    byte[] out = new byte[784];
    System.arraycopy(t10k().pixels(), i * 784, out, 0, 784);
    return out;
  }

  public static int label(int i) {
    return t10k().labels()[i];
  }

  public static BufferedImage image(int i) {
    BufferedImage img = new BufferedImage(28, 28, BufferedImage.TYPE_BYTE_GRAY);
    img.getRaster().setDataElements(0, 0, 28, 28, pixels(i));
    return img;
  }

  /**
   * Writes image {@code i} as {@code file} (png or jpg by extension); RGB for JPEG, as cameras
   * write them.
   */
  public static void write(int i, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    String ext =
        file.getFileName().toString().substring(file.getFileName().toString().lastIndexOf('.') + 1);
    BufferedImage img = image(i);
    if (ext.equals("jpg")) {
      BufferedImage rgb = new BufferedImage(28, 28, BufferedImage.TYPE_INT_RGB);
      rgb.getGraphics().drawImage(img, 0, 0, null);
      img = rgb;
    }
    if (!ImageIO.write(img, ext.equals("jpg") ? "jpeg" : ext, file.toFile())) {
      throw new IOException("no writer for " + ext);
    }
  }

  /** The 16 block means of image {@code i}. */
  public static float[] features(int i) {
    byte[] p = pixels(i);
    float[] f = new float[16];
    for (int r = 0; r < 28; r++) {
      for (int c = 0; c < 28; c++) {
        f[(r / 7) * 4 + c / 7] += (p[r * 28 + c] & 0xFF) / 49f;
      }
    }
    return f;
  }

  /** A CSV line: name, f0..f15, label (class name), [split]. */
  public static String csvLine(int i, String split) {
    StringBuilder sb = new StringBuilder("img-" + i);
    for (float x : features(i)) {
      sb.append(',').append(String.format(Locale.ROOT, "%s", x));
    }
    sb.append(',').append(className(label(i)));
    if (split != null) {
      sb.append(',').append(split);
    }
    return sb.toString();
  }

  public static String csvHeader(boolean withSplit) {
    StringBuilder sb = new StringBuilder("name");
    for (int k = 0; k < 16; k++) {
      sb.append(",f").append(k);
    }
    return sb.append(",label").append(withSplit ? ",split" : "").toString();
  }
}
