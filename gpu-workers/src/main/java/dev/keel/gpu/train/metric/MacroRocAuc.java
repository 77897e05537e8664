package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The area under the ROC curve of each class against the rest, from the softmax probabilities,
 * averaged with equal weight over the classes that have both positive and negative rows in the
 * split (scikit-learn's {@code roc_auc_score(multi_class="ovr", average="macro")}; for two classes,
 * the binary AUC). Tied scores count one half, as the Mann–Whitney statistic counts them. 0.5 is
 * chance; a split with no such class reports 0.5.
 */
final class MacroRocAuc implements Metric {
  @Override
  public String name() {
    return "validation_roc_auc";
  }

  @Override
  public boolean smallerIsBetter() {
    return false;
  }

  @Override
  public Tally start() {
    return new Tally() {
      private float[] scores = new float[1024];
      private int[] labels = new int[64];
      private int rows;
      private int classes;

      @Override
      public void add(NDArray outputs, NDArray y, NDArray perExampleLoss) {
        int n = (int) outputs.getShape().get(0);
        classes = (int) outputs.getShape().get(1);
        float[] p = outputs.softmax(1).toFloatArray();
        long[] l = y.toLongArray();
        if ((long) (rows + n) * classes > scores.length) {
          scores = Arrays.copyOf(scores, Math.max(2 * scores.length, (rows + n) * classes));
        }
        if (rows + n > labels.length) {
          labels = Arrays.copyOf(labels, Math.max(2 * labels.length, rows + n));
        }
        System.arraycopy(p, 0, scores, rows * classes, n * classes);
        for (int i = 0; i < n; i++) {
          labels[rows + i] = (int) l[i];
        }
        rows += n;
      }

      @Override
      public double value(int examples) {
        boolean[] positive = new boolean[rows * classes];
        for (int i = 0; i < rows; i++) {
          if (labels[i] >= 0 && labels[i] < classes) {
            positive[i * classes + labels[i]] = true;
          }
        }
        return mean(perColumn(scores, positive, rows, classes));
      }
    };
  }

  /**
   * The AUC of each column of a row-major {@code rows x columns} score matrix against the same
   * cells of {@code positive}, by column index; a column without both positive and negative rows
   * has none.
   */
  static Map<Integer, Double> perColumn(float[] scores, boolean[] positive, int rows, int columns) {
    Map<Integer, Double> out = new LinkedHashMap<>();
    float[] column = new float[rows];
    boolean[] isPositive = new boolean[rows];
    for (int c = 0; c < columns; c++) {
      for (int i = 0; i < rows; i++) {
        column[i] = scores[i * columns + c];
        isPositive[i] = positive[i * columns + c];
      }
      double auc = auc(column, isPositive);
      if (!Double.isNaN(auc)) {
        out.put(c, auc);
      }
    }
    return out;
  }

  /** The mean of the columns' AUCs; 0.5 (chance) when none has one. */
  static double mean(Map<Integer, Double> aucs) {
    return aucs.values().stream().mapToDouble(Double::doubleValue).average().orElse(0.5);
  }

  /**
   * The probability that a random positive row scores above a random negative one (ties: one half),
   * from the rank sum of the positives; NaN when either side is empty.
   */
  static double auc(float[] score, boolean[] positive) {
    int n = score.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Float.compare(score[a], score[b]));
    double positiveRanks = 0;
    long positives = 0;
    for (int start = 0; start < n; ) {
      int end = start;
      while (end + 1 < n && score[order[end + 1]] == score[order[start]]) {
        end++;
      }
      double rank = (start + end) / 2.0 + 1; // ties share their mean rank
      for (int k = start; k <= end; k++) {
        if (positive[order[k]]) {
          positiveRanks += rank;
          positives++;
        }
      }
      start = end + 1;
    }
    long negatives = n - positives;
    if (positives == 0 || negatives == 0) {
      return Double.NaN;
    }
    return (positiveRanks - positives * (positives + 1) / 2.0) / ((double) positives * negatives);
  }
}
