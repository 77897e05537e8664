package dev.keel.tables.drift;

import dev.keel.api.v1.InputStatistics;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import dev.keel.tables.dataset.LabeledImages;

/**
 * The statistics of a training split in the units an inference run measures its input in (raw
 * pixels 0..255, raw feature values), so the two compare directly: per-feature mean and population
 * variance, and the true-label histogram where a run has its predicted-label histogram.
 */
final class ReferenceStatistics {
  private ReferenceStatistics() {}

  static InputStatistics of(LabeledExamples examples) {
    int n = examples.size();
    int d = examples.exampleSize();
    double[] sum = new double[d];
    double[] squares = new double[d];
    if (examples instanceof LabeledImages images) {
      byte[] px = images.pixels();
      for (int o = 0; o < px.length; o++) {
        int v = px[o] & 0xff;
        sum[o % d] += v;
        squares[o % d] += v * v;
      }
    } else if (examples instanceof LabeledFeatures features) {
      float[] x = features.features();
      for (int o = 0; o < x.length; o++) {
        sum[o % d] += x[o];
        squares[o % d] += (double) x[o] * x[o];
      }
    }
    InputStatistics.Builder b = InputStatistics.newBuilder().setRows(n);
    for (int j = 0; j < d && n > 0; j++) {
      double mean = sum[j] / n;
      b.addMean(mean).addVariance(Math.max(0, squares[j] / n - mean * mean));
    }
    int classes = 0;
    for (int label : examples.labels()) {
      classes = Math.max(classes, label + 1);
    }
    long[] counts = new long[classes];
    for (int label : examples.labels()) {
      counts[label]++;
    }
    for (long c : counts) {
      b.addPredictedLabelCounts(c);
    }
    return b.build();
  }
}
