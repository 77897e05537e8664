package dev.keel.tables.dataset;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Images with labels, packed for training: image {@code i} is {@code pixels[i*channels*rows*cols ..
 * (i+1)*channels*rows*cols)}, one unsigned byte per pixel and channel, channel planes one after the
 * other ({@code C×H×W}). {@code normalization} says how a byte becomes a model input.
 */
public record LabeledImages(
    long[] ids,
    int[] labels,
    byte[] pixels,
    int channels,
    int rows,
    int cols,
    ImageNormalization normalization)
    implements LabeledExamples {

  /** The shape a grey-scale table has when its properties record none (Fashion-MNIST's). */
  public static final String DEFAULT_SHAPE = "28x28";

  public LabeledImages {
    if (channels < 1
        || ids.length != labels.length
        || pixels.length != (long) labels.length * channels * rows * cols) {
      throw new IllegalArgumentException(
          "inconsistent dataset: "
              + ids.length
              + " ids, "
              + labels.length
              + " labels, "
              + pixels.length
              + " pixel bytes for "
              + shape(channels, rows, cols)
              + " images");
    }
    if (!normalization.isNone() && normalization.channels() != channels) {
      throw new IllegalArgumentException(
          "normalisation of " + normalization.channels() + " channels for " + channels);
    }
  }

  /** Grey-scale images scaled to [0, 1]. */
  public LabeledImages(long[] ids, int[] labels, byte[] pixels, int rows, int cols) {
    this(ids, labels, pixels, 1, rows, cols, ImageNormalization.NONE);
  }

  /**
   * The shape property's spelling: {@code HxW} for one channel (as tables have always said), {@code
   * CxHxW} for more.
   */
  public static String shape(int channels, int rows, int cols) {
    return (channels == 1 ? "" : channels + "x") + rows + "x" + cols;
  }

  /**
   * {@code {channels, rows, cols}} of a shape property ({@code HxW} or {@code CxHxW}).
   *
   * @throws IllegalArgumentException naming the value when it is neither
   */
  public static int[] parseShape(String shape) {
    String[] p = shape.strip().split("x");
    try {
      int[] v = Arrays.stream(p).mapToInt(s -> Integer.parseInt(s.strip())).toArray();
      if ((v.length == 2 || v.length == 3) && Arrays.stream(v).allMatch(x -> x > 0)) {
        return v.length == 2 ? new int[] {1, v[0], v[1]} : v;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException("image shape '" + shape + "' is not HxW or CxHxW");
  }

  /** {@code {channels, rows, cols}} recorded in a labeled-images table's properties. */
  public static int[] shapeOf(Map<String, String> properties, String shapeProperty) {
    return parseShape(properties.getOrDefault(shapeProperty, DEFAULT_SHAPE));
  }

  @Override
  public int size() {
    return labels.length;
  }

  public int imageBytes() {
    return channels * rows * cols;
  }

  @Override
  public long[] exampleShape() {
    return new long[] {channels, rows, cols};
  }

  @Override
  public int exampleSize() {
    return imageBytes();
  }

  /** The same images, made model inputs by {@code other}. */
  public LabeledImages withNormalization(ImageNormalization other) {
    return other.equals(normalization)
        ? this
        : new LabeledImages(ids, labels, pixels, channels, rows, cols, other);
  }

  /**
   * Pixels as model inputs: {@code (b & 0xFF) * (1f / 255f)} without normalisation (checkpoints of
   * earlier versions depend on this exact float), then per channel {@code (x - mean) / std}.
   */
  @Override
  public float[] floats(int[] rowIndices) {
    int px = imageBytes();
    int plane = rows * cols;
    float[] buf = new float[rowIndices.length * px];
    for (int i = 0; i < rowIndices.length; i++) {
      int src = rowIndices[i] * px;
      int dst = i * px;
      if (normalization.isNone()) {
        for (int k = 0; k < px; k++) {
          buf[dst + k] = (pixels[src + k] & 0xFF) * (1f / 255f);
        }
      } else {
        for (int c = 0, k = 0; c < channels; c++) {
          for (int end = k + plane; k < end; k++) {
            buf[dst + k] = normalization.apply(pixels[src + k] & 0xFF, c);
          }
        }
      }
    }
    return buf;
  }

  /** The model input of a black pixel (0) of {@code channel}: what padding fills in. */
  public float black(int channel) {
    return normalization.apply(0, channel);
  }

  @Override
  public LabeledImages slice(int from, int to) {
    int px = imageBytes();
    return new LabeledImages(
        Arrays.copyOfRange(ids, from, to),
        Arrays.copyOfRange(labels, from, to),
        Arrays.copyOfRange(pixels, from * px, to * px),
        channels,
        rows,
        cols,
        normalization);
  }

  @Override
  public LabeledImages select(int[] rowIndices) {
    int px = imageBytes();
    long[] selectedIds = new long[rowIndices.length];
    int[] selectedLabels = new int[rowIndices.length];
    byte[] selectedPixels = new byte[rowIndices.length * px];
    for (int i = 0; i < rowIndices.length; i++) {
      selectedIds[i] = ids[rowIndices[i]];
      selectedLabels[i] = labels[rowIndices[i]];
      System.arraycopy(pixels, rowIndices[i] * px, selectedPixels, i * px, px);
    }
    return new LabeledImages(
        selectedIds, selectedLabels, selectedPixels, channels, rows, cols, normalization);
  }

  /** Image tables carry no class names in memory; labels are the classes. */
  @Override
  public List<String> classNames() {
    return List.of();
  }

  @Override
  public String describe() {
    return rows
        + "x"
        + cols
        + (channels == 1 ? "" : channels == 3 ? " rgb" : " " + channels + "-channel")
        + " images";
  }
}
