package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.model.Task;
import dev.keel.gpu.train.Metrics;

/** The training loss's mean over the validation rows. */
final class MeanLoss implements Metric {
  @Override
  public String name() {
    return Metrics.VALIDATION_LOSS;
  }

  /** Every task has a loss; a regression's is measured as a classification's. */
  @Override
  public Task task() {
    return null;
  }

  @Override
  public boolean smallerIsBetter() {
    return true;
  }

  @Override
  public Tally start() {
    return new Tally() {
      private double sum;

      @Override
      public void add(NDArray outputs, NDArray labels, NDArray perExampleLoss) {
        sum += perExampleLoss.sum().getFloat();
      }

      @Override
      public double value(int examples) {
        return sum / examples;
      }
    };
  }
}
