package dev.keel.gpu.predict;

import java.util.List;

/**
 * Per-image predictions, in input order.
 *
 * @param labels the arg-max class
 * @param scores its softmax probability
 */
public record Predictions(int[] labels, float[] scores) {

  /** The predictions of consecutive slices of one input, joined in input order. */
  public static Predictions concatenate(List<Predictions> parts) {
    int n = parts.stream().mapToInt(Predictions::size).sum();
    int[] labels = new int[n];
    float[] scores = new float[n];
    int at = 0;
    for (Predictions p : parts) {
      System.arraycopy(p.labels, 0, labels, at, p.size());
      System.arraycopy(p.scores, 0, scores, at, p.size());
      at += p.size();
    }
    return new Predictions(labels, scores);
  }

  public int size() {
    return labels.length;
  }

  /** Fraction of {@code truth} predicted correctly. */
  public double accuracy(int[] truth) {
    if (truth.length != labels.length) {
      throw new IllegalArgumentException(
          truth.length + " labels for " + labels.length + " predictions");
    }
    int ok = 0;
    for (int i = 0; i < truth.length; i++) {
      ok += truth[i] == labels[i] ? 1 : 0;
    }
    return truth.length == 0 ? Double.NaN : (double) ok / truth.length;
  }
}
