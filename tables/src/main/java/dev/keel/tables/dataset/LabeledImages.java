package dev.keel.tables.dataset;

/**
 * Grey-scale images with labels, packed for training: image {@code i} is
 * {@code pixels[i*rows*cols .. (i+1)*rows*cols)}, one unsigned byte per pixel.
 */
public record LabeledImages(long[] ids, int[] labels, byte[] pixels, int rows, int cols) {

  public LabeledImages {
    if (ids.length != labels.length || pixels.length != (long) labels.length * rows * cols) {
      throw new IllegalArgumentException(
          "inconsistent dataset: " + ids.length + " ids, " + labels.length + " labels, "
              + pixels.length + " pixel bytes for " + rows + "x" + cols + " images");
    }
  }

  public int size() {
    return labels.length;
  }

  public int imageBytes() {
    return rows * cols;
  }
}
