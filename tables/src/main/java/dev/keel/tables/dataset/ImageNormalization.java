package dev.keel.tables.dataset;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Per-channel normalisation of image inputs: a pixel {@code b} of channel {@code c} becomes {@code
 * (b / 255 - mean[c]) / std[c]}. The statistics are those of a table's training split, computed at
 * ETL ({@code source.normalize}) and kept in the table's properties; a trial records them in its
 * hyperparameters, so scoring any table with its checkpoint applies the same numbers. {@link #NONE}
 * leaves pixels at {@code b / 255}.
 */
public record ImageNormalization(float[] mean, float[] std) {
  public static final ImageNormalization NONE = new ImageNormalization(new float[0], new float[0]);

  /** Table property: the per-channel means of the training split's pixels in [0, 1]. */
  public static final String MEAN_PROPERTY = "keel.image.mean";

  /** Table property: the per-channel standard deviations, as {@link #MEAN_PROPERTY}. */
  public static final String STD_PROPERTY = "keel.image.std";

  /** A deviation below this is a constant channel: it is centred, not scaled. */
  static final float CONSTANT_CHANNEL = 1e-6f;

  public ImageNormalization {
    if (mean.length != std.length) {
      throw new IllegalArgumentException(
          "image normalisation has " + mean.length + " means and " + std.length + " deviations");
    }
    for (int c = 0; c < mean.length; c++) {
      if (!Float.isFinite(mean[c]) || !Float.isFinite(std[c]) || std[c] <= 0) {
        throw new IllegalArgumentException(
            "image normalisation of channel " + c + ": mean " + mean[c] + ", std " + std[c]);
      }
    }
  }

  public boolean isNone() {
    return mean.length == 0;
  }

  public int channels() {
    return mean.length;
  }

  /**
   * The statistics of {@code pixels} ({@code n} images of {@code channels} planes of {@code plane}
   * bytes each), over the images {@code take} accepts.
   */
  public static ImageNormalization of(
      byte[] pixels, int channels, int plane, java.util.function.IntPredicate take) {
    int size = channels * plane;
    int n = pixels.length / size;
    double[] sum = new double[channels];
    double[] squares = new double[channels];
    long count = 0;
    for (int i = 0; i < n; i++) {
      if (!take.test(i)) {
        continue;
      }
      count++;
      for (int c = 0; c < channels; c++) {
        long s = 0;
        long q = 0;
        for (int k = i * size + c * plane, end = k + plane; k < end; k++) {
          int v = pixels[k] & 0xFF;
          s += v;
          q += (long) v * v;
        }
        sum[c] += s;
        squares[c] += q;
      }
    }
    if (count == 0) {
      return NONE;
    }
    float[] mean = new float[channels];
    float[] std = new float[channels];
    double values = (double) count * plane;
    for (int c = 0; c < channels; c++) {
      double m = sum[c] / values;
      double variance = Math.max(0, squares[c] / values - m * m);
      mean[c] = (float) (m / 255);
      std[c] = (float) Math.max(CONSTANT_CHANNEL, Math.sqrt(variance) / 255);
    }
    return new ImageNormalization(mean, std);
  }

  /** The table properties that record it; none for {@link #NONE}. */
  public Map<String, String> properties() {
    if (isNone()) {
      return Map.of();
    }
    return Map.of(MEAN_PROPERTY, format(mean), STD_PROPERTY, format(std));
  }

  /**
   * The normalisation a table's properties record, {@link #NONE} when they record none.
   *
   * @throws IllegalArgumentException naming the property when it is not a list of numbers
   */
  public static ImageNormalization fromProperties(Map<String, String> properties) {
    String mean = properties.getOrDefault(MEAN_PROPERTY, "");
    String std = properties.getOrDefault(STD_PROPERTY, "");
    return parse(mean, std, MEAN_PROPERTY, STD_PROPERTY);
  }

  /**
   * From the two comma-separated lists (empty: {@link #NONE}); {@code meanName} and {@code stdName}
   * name them in errors.
   */
  public static ImageNormalization parse(String mean, String std, String meanName, String stdName) {
    if (mean.isBlank() && std.isBlank()) {
      return NONE;
    }
    float[] m = floats(mean, meanName);
    float[] s = floats(std, stdName);
    if (m.length != s.length) {
      throw new IllegalArgumentException(
          meanName + " has " + m.length + " values but " + stdName + " has " + s.length);
    }
    try {
      return new ImageNormalization(m, s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(meanName + ", " + stdName + ": " + e.getMessage(), e);
    }
  }

  /** The comma-separated form the properties and hyperparameters hold. */
  public static String format(float[] values) {
    return IntStream.range(0, values.length)
        .mapToObj(i -> Float.toString(values[i]))
        .collect(Collectors.joining(","));
  }

  private static float[] floats(String list, String name) {
    String[] parts = list.strip().split("\\s*,\\s*");
    float[] out = new float[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Float.parseFloat(parts[i]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            name + " '" + list + "' is not a comma-separated list of numbers", e);
      }
    }
    return out;
  }

  /** What a pixel {@code b} (0..255) of {@code channel} is as a model input. */
  public float apply(int b, int channel) {
    float x = b * (1f / 255f);
    return isNone() ? x : (x - mean[channel]) / std[channel];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ImageNormalization other
        && Arrays.equals(mean, other.mean)
        && Arrays.equals(std, other.std);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(mean) + Arrays.hashCode(std);
  }

  @Override
  public String toString() {
    return isNone()
        ? "none"
        : String.format(Locale.ROOT, "mean [%s], std [%s]", format(mean), format(std));
  }
}
