package dev.keel.gpu.predict;

/**
 * Per-image predictions, in input order.
 *
 * @param labels the arg-max class
 * @param scores its softmax probability
 */
public record Predictions(int[] labels, float[] scores) {

  public int size() {
    return labels.length;
  }

  /** Fraction of {@code truth} predicted correctly. */
  public double accuracy(int[] truth) {
    if (truth.length != labels.length) {
      throw new IllegalArgumentException(truth.length + " labels for " + labels.length + " predictions");
    }
    int ok = 0;
    for (int i = 0; i < truth.length; i++) {
      ok += truth[i] == labels[i] ? 1 : 0;
    }
    return truth.length == 0 ? Double.NaN : (double) ok / truth.length;
  }
}
