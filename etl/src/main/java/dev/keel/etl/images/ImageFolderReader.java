package dev.keel.etl.images;

import dev.keel.api.config.Splits;
import dev.keel.etl.BadRecords;
import dev.keel.etl.HashSplit;
import dev.keel.etl.source.SourceFiles;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * Reads an image folder: {@code <class>/<file>} (split by {@link HashSplit} of the relative path)
 * or {@code train/<class>/<file>} + {@code test/<class>/<file>}. Every image becomes grey-scale
 * bytes of one shape: {@code image_size} when set, else the first image's (in path order); others
 * are resized with bilinear interpolation. Class names are the sorted class sub-folder names.
 */
public final class ImageFolderReader {
  /** Decoded images: {@code pixels} holds {@code n} row-major {@code height*width} images. */
  public record Images(
      int n,
      int[] labels,
      String[] splits,
      byte[] pixels,
      int height,
      int width,
      List<String> classNames) {}

  private ImageFolderReader() {}

  /**
   * @param shape {height, width}, or null for the first image's size
   */
  public static Images read(
      List<SourceFiles.Entry> files, int[] shape, HashSplit hash, BadRecords bad)
      throws IOException {
    boolean splitLayout =
        !files.isEmpty()
            && files.stream()
                .allMatch(
                    f -> {
                      String[] p = f.relative().split("/");
                      return p.length == 3 && Splits.known(p[0]);
                    });
    int depth = splitLayout ? 3 : 2;
    TreeSet<String> classes = new TreeSet<>();
    for (SourceFiles.Entry f : files) {
      String[] p = f.relative().split("/");
      if (p.length == depth) {
        classes.add(p[depth - 2]);
      }
    }
    List<String> classNames = List.copyOf(classes);
    int height = shape == null ? -1 : shape[0];
    int width = shape == null ? -1 : shape[1];
    ByteArrayOutputStream pixels = new ByteArrayOutputStream();
    List<Integer> labels = new ArrayList<>();
    List<String> splits = new ArrayList<>();
    for (SourceFiles.Entry f : files) {
      String[] p = f.relative().split("/");
      if (p.length != depth) {
        bad.report(
            f.relative(),
            splitLayout || p.length != 3
                ? "not in a class sub-folder (expected <class>/<file> or train|test/<class>/<file>)"
                : "not in a class sub-folder");
        continue;
      }
      BufferedImage img;
      try {
        img = ImageIO.read(f.path().toFile());
      } catch (IOException | RuntimeException e) {
        bad.report(f.relative(), "undecodable image (" + e.getMessage() + ")");
        continue;
      }
      if (img == null) {
        bad.report(f.relative(), "undecodable image (not a PNG/JPEG file javax.imageio can read)");
        continue;
      }
      if (height < 0) {
        height = img.getHeight();
        width = img.getWidth();
      }
      pixels.write(grey(img, height, width));
      labels.add(classNames.indexOf(p[depth - 2]));
      splits.add(splitLayout ? p[0] : hash.splitOf(f.relative()));
    }
    int n = labels.size();
    int[] lab = new int[n];
    for (int i = 0; i < n; i++) {
      lab[i] = labels.get(i);
    }
    return new Images(
        n,
        lab,
        splits.toArray(String[]::new),
        pixels.toByteArray(),
        Math.max(height, 0),
        Math.max(width, 0),
        classNames);
  }

  /**
   * Grey-scale bytes at {@code height x width}: copied as they are when already so, else drawn
   * (resized).
   */
  static byte[] grey(BufferedImage img, int height, int width) {
    BufferedImage g;
    if (img.getType() == BufferedImage.TYPE_BYTE_GRAY
        && img.getHeight() == height
        && img.getWidth() == width) {
      g = img;
    } else {
      g = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_GRAY);
      Graphics2D gr = g.createGraphics();
      try {
        gr.setRenderingHint(
            RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        gr.drawImage(img, 0, 0, width, height, null);
      } finally {
        gr.dispose();
      }
    }
    byte[] out = new byte[height * width];
    g.getRaster().getDataElements(0, 0, width, height, out);
    return out;
  }
}
