package dev.keel.workflows.inference;

import dev.keel.api.v1.ClassAccuracy;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.ScorePartitionResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Adds up the partitions' results (rows, correct predictions, per-feature sums, label histogram,
 * rows and correct predictions per true label) into a run's accuracy, its {@link InputStatistics}
 * and its accuracy per class. Pure arithmetic, so it may run in workflow code.
 */
final class PartitionTotals {
  private long rows;
  private long correct;
  private double[] sums = new double[0];
  private double[] squares = new double[0];
  private long[] labels = new long[0];
  private long[] labelRows = new long[0];
  private long[] labelCorrect = new long[0];

  void add(ScorePartitionResult r) {
    rows += r.getRows();
    correct += r.getCorrect();
    if (sums.length < r.getFeatureSumsCount()) {
      sums = Arrays.copyOf(sums, r.getFeatureSumsCount());
      squares = Arrays.copyOf(squares, r.getFeatureSumsCount());
    }
    for (int j = 0; j < r.getFeatureSumsCount(); j++) {
      sums[j] += r.getFeatureSums(j);
      squares[j] += r.getFeatureSquares(j);
    }
    if (labels.length < r.getPredictedLabelCountsCount()) {
      labels = Arrays.copyOf(labels, r.getPredictedLabelCountsCount());
    }
    for (int k = 0; k < r.getPredictedLabelCountsCount(); k++) {
      labels[k] += r.getPredictedLabelCounts(k);
    }
    if (labelRows.length < r.getLabelRowsCount()) {
      labelRows = Arrays.copyOf(labelRows, r.getLabelRowsCount());
      labelCorrect = Arrays.copyOf(labelCorrect, r.getLabelRowsCount());
    }
    for (int k = 0; k < r.getLabelRowsCount(); k++) {
      labelRows[k] += r.getLabelRows(k);
      labelCorrect[k] += r.getLabelCorrect(k);
    }
  }

  /**
   * Accuracy per true label that has scored rows, in label order; {@code classNames} (the table's,
   * may be empty) name them. Correct and accuracy are always set, so a class nothing was predicted
   * right for shows 0 in JSON; a class without rows in the scored split is left out (it has no
   * accuracy).
   */
  List<ClassAccuracy> classes(List<String> classNames) {
    List<ClassAccuracy> out = new ArrayList<>();
    for (int l = 0; l < labelRows.length; l++) {
      long n = labelRows[l];
      long c = labelCorrect[l];
      if (n == 0) {
        continue;
      }
      out.add(
          ClassAccuracy.newBuilder()
              .setLabel(l)
              .setName(l < classNames.size() ? classNames.get(l) : "")
              .setRows(n)
              .setCorrect(c)
              .setAccuracy((double) c / n)
              .build());
    }
    return out;
  }

  long rows() {
    return rows;
  }

  double accuracy() {
    return rows == 0 ? 0 : (double) correct / rows;
  }

  InputStatistics statistics() {
    InputStatistics.Builder b = InputStatistics.newBuilder().setRows(rows);
    for (int j = 0; j < sums.length && rows > 0; j++) {
      double mean = sums[j] / rows;
      b.addMean(mean).addVariance(Math.max(0, squares[j] / rows - mean * mean));
    }
    for (long c : labels) {
      b.addPredictedLabelCounts(c);
    }
    return b.build();
  }
}
