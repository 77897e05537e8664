package dev.keel.inference;

import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import dev.keel.tables.dataset.LabeledImages;

/**
 * Sums, per pixel or feature, of the values and their squares, the predicted-label histogram, and
 * rows and correct predictions per true label of one partition: sums (not means) so that the
 * workflow adds partitions up. Pixels are bytes, so their sums are integers and exact in a double
 * up to 2^53 / 255^2 (about 10^11) rows.
 */
final class PartitionStatistics {
  private PartitionStatistics() {}

  static void addTo(ScorePartitionResult.Builder out, LabeledExamples examples, int[] predicted) {
    if (examples instanceof LabeledImages images) {
      addPixels(out, images);
    } else if (examples instanceof LabeledFeatures features) {
      addFeatures(out, features);
    }
    int max = -1;
    for (int p : predicted) {
      max = Math.max(max, p);
    }
    long[] counts = new long[max + 1];
    for (int p : predicted) {
      counts[p]++;
    }
    for (long c : counts) {
      out.addPredictedLabelCounts(c);
    }
    addPerLabel(out, examples.labels(), predicted);
  }

  /**
   * Rows and correct predictions per true label, so that a run's accuracy can be read per class.
   */
  private static void addPerLabel(ScorePartitionResult.Builder out, int[] labels, int[] predicted) {
    int max = -1;
    for (int l : labels) {
      max = Math.max(max, l);
    }
    long[] rows = new long[max + 1];
    long[] correct = new long[max + 1];
    for (int i = 0; i < labels.length; i++) {
      rows[labels[i]]++;
      correct[labels[i]] += predicted[i] == labels[i] ? 1 : 0;
    }
    for (int l = 0; l <= max; l++) {
      out.addLabelRows(rows[l]).addLabelCorrect(correct[l]);
    }
  }

  private static void addPixels(ScorePartitionResult.Builder out, LabeledImages images) {
    int d = images.imageBytes();
    long[] sum = new long[d];
    long[] squares = new long[d];
    byte[] px = images.pixels();
    for (int i = 0, o = 0; i < images.size(); i++) {
      for (int j = 0; j < d; j++, o++) {
        int v = px[o] & 0xff;
        sum[j] += v;
        squares[j] += (long) v * v;
      }
    }
    for (int j = 0; j < d; j++) {
      out.addFeatureSums((double) sum[j]).addFeatureSquares((double) squares[j]);
    }
  }

  /**
   * Raw feature values, summed in double (exact to float precision for any realistic partition).
   */
  private static void addFeatures(ScorePartitionResult.Builder out, LabeledFeatures features) {
    int d = features.width();
    double[] sum = new double[d];
    double[] squares = new double[d];
    float[] x = features.features();
    for (int i = 0, o = 0; i < features.size(); i++) {
      for (int j = 0; j < d; j++, o++) {
        sum[j] += x[o];
        squares[j] += (double) x[o] * x[o];
      }
    }
    for (int j = 0; j < d; j++) {
      out.addFeatureSums(sum[j]).addFeatureSquares(squares[j]);
    }
  }
}
