package dev.keel.tables.dataset;

import java.util.Arrays;
import java.util.List;

/**
 * Grey-scale images with labels, packed for training: image {@code i} is {@code pixels[i*rows*cols
 * .. (i+1)*rows*cols)}, one unsigned byte per pixel.
 */
public record LabeledImages(long[] ids, int[] labels, byte[] pixels, int rows, int cols)
    implements LabeledExamples {

  public LabeledImages {
    if (ids.length != labels.length || pixels.length != (long) labels.length * rows * cols) {
      throw new IllegalArgumentException(
          "inconsistent dataset: "
              + ids.length
              + " ids, "
              + labels.length
              + " labels, "
              + pixels.length
              + " pixel bytes for "
              + rows
              + "x"
              + cols
              + " images");
    }
  }

  @Override
  public int size() {
    return labels.length;
  }

  public int imageBytes() {
    return rows * cols;
  }

  @Override
  public long[] exampleShape() {
    return new long[] {1, rows, cols};
  }

  @Override
  public int exampleSize() {
    return rows * cols;
  }

  /**
   * Pixels scaled to [0, 1] as {@code (b & 0xFF) * (1f / 255f)}: checkpoints of earlier versions
   * depend on this exact float.
   */
  @Override
  public float[] floats(int[] rowIndices) {
    int px = imageBytes();
    float[] buf = new float[rowIndices.length * px];
    for (int i = 0; i < rowIndices.length; i++) {
      int src = rowIndices[i] * px;
      int dst = i * px;
      for (int k = 0; k < px; k++) {
        buf[dst + k] = (pixels[src + k] & 0xFF) * (1f / 255f);
      }
    }
    return buf;
  }

  @Override
  public LabeledImages slice(int from, int to) {
    int px = imageBytes();
    return new LabeledImages(
        Arrays.copyOfRange(ids, from, to),
        Arrays.copyOfRange(labels, from, to),
        Arrays.copyOfRange(pixels, from * px, to * px),
        rows,
        cols);
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
    return new LabeledImages(selectedIds, selectedLabels, selectedPixels, rows, cols);
  }

  /** Image tables carry no class names in memory; labels are the classes. */
  @Override
  public List<String> classNames() {
    return List.of();
  }

  @Override
  public String describe() {
    return rows + "x" + cols + " images";
  }
}
