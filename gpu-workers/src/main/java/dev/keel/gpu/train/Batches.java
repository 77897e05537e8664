package dev.keel.gpu.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.tables.dataset.LabeledExamples;

/**
 * Turns rows of {@link LabeledExamples} into tensors: inputs {@code (N, example shape…)} (images
 * {@code (N, C, H, W)}, pixels in [0, 1] or normalised per channel, feature vectors {@code (N,
 * features)}), labels by task ({@link #labels}).
 */
public final class Batches {
  private Batches() {}

  public static NDArray inputs(NDManager manager, LabeledExamples data, int[] rows) {
    return manager.create(
        data.floats(rows), new Shape(rows.length).addAll(new Shape(data.exampleShape())));
  }

  /**
   * Class indices as int64 {@code (N)}, a regression table's values as float32 {@code (N)}, or a
   * multilabel table's targets as float32 {@code (N, labels)}.
   */
  public static NDArray labels(NDManager manager, LabeledExamples data, int[] rows) {
    float[] values = data.values();
    if (values != null) {
      int w = data.valueWidth();
      float[] v = new float[rows.length * w];
      for (int i = 0; i < rows.length; i++) {
        System.arraycopy(values, rows[i] * w, v, i * w, w);
      }
      return data.multilabel() ? manager.create(v, new Shape(rows.length, w)) : manager.create(v);
    }
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
