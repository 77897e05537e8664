package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.train.Metrics;
import java.util.List;

/** The share of rows whose highest output is the label's. */
final class Accuracy implements Metric {
  @Override
  public String name() {
    return Metrics.VALIDATION_ACCURACY;
  }

  @Override
  public List<String> aliases() {
    return List.of(Metrics.ACCURACY);
  }

  @Override
  public boolean smallerIsBetter() {
    return false;
  }

  @Override
  public Tally start() {
    return new Tally() {
      private long correct;

      @Override
      public void add(NDArray outputs, NDArray labels, NDArray perExampleLoss) {
        correct += outputs.argMax(1).eq(labels).sum().getLong();
      }

      @Override
      public double value(int examples) {
        return (double) correct / examples;
      }
    };
  }
}
