package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;

/**
 * The share of rows whose label is among the {@code k} highest outputs (ties broken towards the
 * lower class, as the arg-max of {@link Accuracy}). With {@code k} classes or fewer it is 1.
 */
final class TopKAccuracy implements Metric {
  private final int k;

  TopKAccuracy(int k) {
    this.k = k;
  }

  @Override
  public String name() {
    return "validation_top" + k + "_accuracy";
  }

  @Override
  public boolean smallerIsBetter() {
    return false;
  }

  @Override
  public Tally start() {
    return new Tally() {
      private long correct;

      @Override
      public void add(NDArray outputs, NDArray labels, NDArray perExampleLoss) {
        float[] out = outputs.toFloatArray();
        long[] y = labels.toLongArray();
        int classes = out.length / y.length;
        for (int i = 0; i < y.length; i++) {
          float own = out[i * classes + (int) y[i]];
          int above = 0;
          for (int c = 0; c < classes; c++) {
            float v = out[i * classes + c];
            if (v > own || (v == own && c < y[i])) {
              above++;
            }
          }
          correct += above < k ? 1 : 0;
        }
      }

      @Override
      public double value(int examples) {
        return (double) correct / examples;
      }
    };
  }
}
