package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import dev.keel.gpu.model.Task;
import java.util.Arrays;
import java.util.Map;

/**
 * The area under the ROC curve of each label of a multilabel table, from its logit (a monotone
 * function of its probability, so the same area), with targets of 0.5 or more counting as positive;
 * reported per label ({@code validation_roc_auc.<label>}) and as their mean over the labels that
 * have both positive and negative rows in the split (scikit-learn's {@code
 * roc_auc_score(average="macro")} on a label-indicator matrix). A split with no such label reports
 * 0.5; a label without both kinds of rows has no figure of its own.
 */
final class MultilabelRocAuc implements Metric {
  @Override
  public String name() {
    return "validation_roc_auc";
  }

  @Override
  public Task task() {
    return Task.MULTILABEL;
  }

  @Override
  public boolean perLabel() {
    return true;
  }

  @Override
  public boolean smallerIsBetter() {
    return false;
  }

  @Override
  public Tally start() {
    return new Tally() {
      private float[] scores = new float[1024];
      private boolean[] positive = new boolean[1024];
      private int rows;
      private int labels;

      @Override
      public void add(NDArray outputs, NDArray targets, NDArray perExampleLoss) {
        int n = (int) outputs.getShape().get(0);
        labels = (int) outputs.getShape().get(1);
        float[] s = outputs.toFloatArray();
        float[] y = targets.toType(DataType.FLOAT32, false).toFloatArray();
        int need = (rows + n) * labels;
        if (need > scores.length) {
          scores = Arrays.copyOf(scores, Math.max(2 * scores.length, need));
          positive = Arrays.copyOf(positive, scores.length);
        }
        System.arraycopy(s, 0, scores, rows * labels, n * labels);
        for (int i = 0; i < n * labels; i++) {
          positive[rows * labels + i] = y[i] >= 0.5f;
        }
        rows += n;
      }

      @Override
      public Map<Integer, Double> perLabel() {
        return MacroRocAuc.perColumn(scores, positive, rows, labels);
      }

      @Override
      public double value(int examples) {
        return MacroRocAuc.mean(perLabel());
      }
    };
  }
}
