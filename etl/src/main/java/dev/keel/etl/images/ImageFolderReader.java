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
 * or {@code train/<class>/<file>} + {@code test/<class>/<file>}. Every image becomes bytes of one
 * shape, grey-scale (one plane) or RGB (three planes, red first): {@code image_size} when set, else
 * the first image's (in path order). An image of another size is resized with bilinear
 * interpolation so that it covers the target, keeping its aspect, and its centre is cropped out.
 * Class names are the sorted class sub-folder names.
 */
public final class ImageFolderReader {
  /**
   * Decoded images: {@code pixels} holds {@code n} images of {@code channels} row-major {@code
   * height*width} planes.
   */
  public record Images(
      int n,
      int[] labels,
      String[] splits,
      byte[] pixels,
      int channels,
      int height,
      int width,
      List<String> classNames) {}

  private ImageFolderReader() {}

  /**
   * @param shape {height, width}, or null for the first image's size
   * @param channels 1 (grey-scale) or 3 (RGB)
   */
  public static Images read(
      List<SourceFiles.Entry> files, int[] shape, int channels, HashSplit hash, BadRecords bad)
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
      pixels.write(channels == 1 ? grey(img, height, width) : rgb(img, height, width));
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
        channels,
        Math.max(height, 0),
        Math.max(width, 0),
        classNames);
  }

  /**
   * Grey-scale bytes at {@code height x width}: copied as they are when already so, else drawn
   * (converted, resized and cropped).
   */
  public static byte[] grey(BufferedImage img, int height, int width) {
    BufferedImage g =
        img.getType() == BufferedImage.TYPE_BYTE_GRAY
                && img.getHeight() == height
                && img.getWidth() == width
            ? img
            : drawn(img, height, width, BufferedImage.TYPE_BYTE_GRAY);
    byte[] out = new byte[height * width];
    g.getRaster().getDataElements(0, 0, width, height, out);
    return out;
  }

  /** Red, green and blue planes at {@code height x width}, drawn as {@link #grey} does. */
  static byte[] rgb(BufferedImage img, int height, int width) {
    int plane = height * width;
    if (img.getType() == BufferedImage.TYPE_BYTE_GRAY) {
      // its bytes as they are in each plane: java.awt's grey-to-sRGB conversion would lift them
      byte[] grey = grey(img, height, width);
      byte[] out = new byte[3 * plane];
      for (int c = 0; c < 3; c++) {
        System.arraycopy(grey, 0, out, c * plane, plane);
      }
      return out;
    }
    BufferedImage c =
        img.getHeight() == height && img.getWidth() == width
            ? img
            : drawn(img, height, width, BufferedImage.TYPE_INT_RGB);
    byte[] out = new byte[3 * plane];
    int[] argb = c.getRGB(0, 0, width, height, null, 0, width);
    for (int k = 0; k < plane; k++) {
      out[k] = (byte) (argb[k] >>> 16);
      out[plane + k] = (byte) (argb[k] >>> 8);
      out[2 * plane + k] = (byte) argb[k];
    }
    return out;
  }

  /**
   * {@code img} scaled to cover {@code height x width} with its aspect kept, centred, the overhang
   * cropped; an image of the target's aspect is just resized.
   */
  private static BufferedImage drawn(BufferedImage img, int height, int width, int type) {
    double scale = Math.max((double) height / img.getHeight(), (double) width / img.getWidth());
    int scaledHeight = Math.max(height, (int) Math.round(img.getHeight() * scale));
    int scaledWidth = Math.max(width, (int) Math.round(img.getWidth() * scale));
    BufferedImage out = new BufferedImage(width, height, type);
    Graphics2D gr = out.createGraphics();
    try {
      gr.setRenderingHint(
          RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
      gr.drawImage(
          img,
          -(scaledWidth - width) / 2,
          -(scaledHeight - height) / 2,
          scaledWidth,
          scaledHeight,
          null);
    } finally {
      gr.dispose();
    }
    return out;
  }
}
