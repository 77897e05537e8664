package dev.keel.inference;

import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.tables.dataset.LabeledImages;

/**
 * Sums, per pixel, of the values and their squares, and the predicted-label histogram of one
 * partition: sums (not means) so that the workflow adds partitions up exactly. Pixels are bytes,
 * so the sums are integers and exact in a double up to 2^53 / 255^2 (about 10^11) rows.
 */
final class PartitionStatistics {
  private PartitionStatistics() {}

  static void addTo(ScorePartitionResult.Builder out, LabeledImages images, int[] predicted) {
    int d = images.imageBytes();
    long[] sum = new long[d];
    long[] squares = new long[d];
    byte[] px = images.pixels();
    for (int i = 0, o = 0; i < images.size(); i++) {
      for (int j = 0; j < d; j++, o++) {
        int v = px[o] & 0xff;
        sum[j] += v;
        squares[j] += v * v;
      }
    }
    for (int j = 0; j < d; j++) {
      out.addFeatureSums(sum[j]).addFeatureSquares(squares[j]);
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
  }
}
