package dev.keel.etl.fashionmnist;

import dev.keel.etl.images.ImageFolderReader;
import dev.keel.tables.dataset.LabeledImages;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;

/**
 * A colour image folder made from Fashion-MNIST, for trying colour models where nothing can be
 * downloaded: each grey image is resized to {@code size×size} and tinted with its class's hue
 * (class {@code k} of 10 at {@code k/10} of the colour wheel) moved by a random amount of up to
 * {@value #HUE_JITTER} of a turn, so colour hints at the class without giving it away. The random
 * numbers come from the image's split and row, so the same arguments write the same files. Files go
 * to {@code <dir>/{train,test}/<class>/<row>.png}, the layout {@code image_folder} reads with its
 * own split.
 */
public final class TintedFashionMnist {
  /** The largest move of an image's hue from its class's, in turns of the colour wheel. */
  public static final double HUE_JITTER = 0.08;

  private static final List<String> CLASSES =
      List.of(
          "t_shirt_top",
          "trouser",
          "pullover",
          "dress",
          "coat",
          "sandal",
          "shirt",
          "sneaker",
          "bag",
          "ankle_boot");

  private TintedFashionMnist() {}

  /** What was written. */
  public record Written(int train, int test) {}

  /**
   * @param fashionMnist the directory of the four IDX files
   * @param perClass the most images of each class in each split (the first ones); 0 for all
   */
  public static Written write(Path fashionMnist, Path dir, int size, int perClass)
      throws IOException {
    if (size < 8 || size > 512) {
      throw new IllegalArgumentException("--size must be in [8, 512], got " + size);
    }
    if (perClass < 0) {
      throw new IllegalArgumentException("--per-class must be >= 0, got " + perClass);
    }
    LabeledImages train;
    LabeledImages test;
    try {
      train = IdxFiles.read(fashionMnist, "train");
      test = IdxFiles.read(fashionMnist, "t10k");
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "--fashion-mnist "
              + fashionMnist
              + " lacks "
              + Path.of(e.getFile()).getFileName()
              + " (install the package dataset-fashion-mnist, or name the directory of the four"
              + " IDX files)",
          e);
    }
    return new Written(
        split(train, dir.resolve("train"), size, perClass),
        split(test, dir.resolve("test"), size, perClass));
  }

  private static int split(LabeledImages images, Path dir, int size, int perClass)
      throws IOException {
    long salt = dir.getFileName().toString().hashCode();
    int[] written = new int[CLASSES.size()];
    int total = 0;
    for (int i = 0; i < images.size(); i++) {
      int label = images.labels()[i];
      if (perClass > 0 && written[label] >= perClass) {
        continue;
      }
      Path classDir = dir.resolve(CLASSES.get(label));
      Files.createDirectories(classDir);
      double hue =
          label / (double) CLASSES.size()
              + (new SplittableRandom(salt * 1_000_003L + i).nextDouble() * 2 - 1) * HUE_JITTER;
      BufferedImage tinted =
          tinted(images, i, size, new Color(Color.HSBtoRGB((float) hue, 0.85f, 1f)));
      Path partial = classDir.resolve(String.format(Locale.ROOT, "%05d.png.partial", i));
      ImageIO.write(tinted, "png", partial.toFile());
      Files.move(partial, classDir.resolve(String.format(Locale.ROOT, "%05d.png", i)));
      written[label]++;
      total++;
    }
    return total;
  }

  /**
   * Image {@code i} resized as an image folder's ingest resizes, each pixel the tint scaled by the
   * pixel's grey value.
   */
  static BufferedImage tinted(LabeledImages images, int i, int size, Color tint) {
    int rows = images.rows();
    int cols = images.cols();
    BufferedImage grey = new BufferedImage(cols, rows, BufferedImage.TYPE_BYTE_GRAY);
    grey.getRaster()
        .setDataElements(
            0,
            0,
            cols,
            rows,
            java.util.Arrays.copyOfRange(images.pixels(), i * rows * cols, (i + 1) * rows * cols));
    byte[] v = ImageFolderReader.grey(grey, size, size);
    BufferedImage out = new BufferedImage(size, size, BufferedImage.TYPE_INT_RGB);
    int[] rgb = new int[size * size];
    for (int k = 0; k < rgb.length; k++) {
      int a = v[k] & 0xFF;
      rgb[k] =
          (tint.getRed() * a / 255) << 16
              | (tint.getGreen() * a / 255) << 8
              | tint.getBlue() * a / 255;
    }
    out.setRGB(0, 0, size, size, rgb, 0, size);
    return out;
  }
}
