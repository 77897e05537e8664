package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.model.Task;

/**
 * The error of one predicted value per row: mean absolute error, root mean squared error, or the
 * coefficient of determination R² ({@code 1 - SSE / total sum of squares about the targets' mean};
 * 1 is perfect, 0 is no better than predicting the mean, and it may be negative).
 */
final class RegressionMetric implements Metric {
  enum Kind {
    MAE,
    RMSE,
    R2
  }

  private final Kind kind;

  RegressionMetric(Kind kind) {
    this.kind = kind;
  }

  @Override
  public String name() {
    return "validation_" + kind.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public Task task() {
    return Task.REGRESSION;
  }

  @Override
  public boolean smallerIsBetter() {
    return kind != Kind.R2;
  }

  @Override
  public Tally start() {
    return new Tally() {
      // doubles on the host: float sums over a large split lose the small differences R² needs
      private double absSum;
      private double sqSum;
      private double ySum;
      private double ySqSum;

      @Override
      public void add(NDArray outputs, NDArray labels, NDArray perExampleLoss) {
        float[] p = RegressionLoss.predictions(outputs).toFloatArray();
        float[] y = labels.toType(ai.djl.ndarray.types.DataType.FLOAT32, false).toFloatArray();
        for (int i = 0; i < p.length; i++) {
          double d = (double) p[i] - y[i];
          absSum += Math.abs(d);
          sqSum += d * d;
          ySum += y[i];
          ySqSum += (double) y[i] * y[i];
        }
      }

      @Override
      public double value(int examples) {
        return switch (kind) {
          case MAE -> absSum / examples;
          case RMSE -> Math.sqrt(sqSum / examples);
          case R2 -> {
            double total = ySqSum - ySum * ySum / examples;
            // constant targets: any error is infinitely worse than the mean, none is perfect
            yield total > 0 ? 1 - sqSum / total : (sqSum == 0 ? 1 : Double.NEGATIVE_INFINITY);
          }
        };
      }
    };
  }
}
