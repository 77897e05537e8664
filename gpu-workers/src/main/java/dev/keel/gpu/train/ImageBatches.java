package dev.keel.gpu.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.tables.dataset.LabeledImages;

/** Turns rows of {@link LabeledImages} into tensors: images {@code (N, 1, H, W)} in [0, 1], labels int64. */
public final class ImageBatches {
  private ImageBatches() {}

  public static NDArray images(NDManager manager, LabeledImages data, int[] rows) {
    int px = data.imageBytes();
    float[] buf = new float[rows.length * px];
    byte[] pixels = data.pixels();
    for (int i = 0; i < rows.length; i++) {
      int src = rows[i] * px;
      int dst = i * px;
      for (int k = 0; k < px; k++) {
        buf[dst + k] = (pixels[src + k] & 0xFF) * (1f / 255f);
      }
    }
    return manager.create(buf, new Shape(rows.length, 1, data.rows(), data.cols()));
  }

  public static NDArray labels(NDManager manager, LabeledImages data, int[] rows) {
    long[] out = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      out[i] = data.labels()[rows[i]];
    }
    return manager.create(out);
  }

  /** Rows {@code from..to-1}. */
  public static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }
}
