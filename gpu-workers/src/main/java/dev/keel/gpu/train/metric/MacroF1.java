package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;

/**
 * The unweighted mean over classes of each class's F1 (the arg-max as the prediction), so a rare
 * class counts as much as a common one. Classes neither labelled nor predicted in the split are
 * left out (scikit-learn's {@code f1_score(average="macro")} over the labels present).
 */
final class MacroF1 implements Metric {
  @Override
  public String name() {
    return "validation_macro_f1";
  }

  @Override
  public boolean smallerIsBetter() {
    return false;
  }

  @Override
  public Tally start() {
    return new Tally() {
      private long[] truePositives = new long[0];
      private long[] predicted = new long[0];
      private long[] actual = new long[0];

      @Override
      public void add(NDArray outputs, NDArray labels, NDArray perExampleLoss) {
        long[] pred = outputs.argMax(1).toLongArray();
        long[] y = labels.toLongArray();
        int classes = (int) outputs.getShape().get(1);
        if (truePositives.length < classes) {
          truePositives = java.util.Arrays.copyOf(truePositives, classes);
          predicted = java.util.Arrays.copyOf(predicted, classes);
          actual = java.util.Arrays.copyOf(actual, classes);
        }
        for (int i = 0; i < y.length; i++) {
          predicted[(int) pred[i]]++;
          actual[(int) y[i]]++;
          truePositives[(int) y[i]] += pred[i] == y[i] ? 1 : 0;
        }
      }

      @Override
      public double value(int examples) {
        double sum = 0;
        int present = 0;
        for (int c = 0; c < truePositives.length; c++) {
          if (predicted[c] + actual[c] > 0) {
            present++;
            sum += 2.0 * truePositives[c] / (predicted[c] + actual[c]);
          }
        }
        return present == 0 ? 0 : sum / present;
      }
    };
  }
}
