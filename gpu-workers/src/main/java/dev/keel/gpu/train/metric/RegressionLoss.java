package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.model.Task;

/**
 * A loss of one output per row against a float target: squared error, absolute error, or Huber's
 * (squared below {@code delta = 1}, absolute above, so outliers pull linearly).
 */
final class RegressionLoss implements Loss {
  enum Kind {
    MSE,
    L1,
    HUBER
  }

  private final Kind kind;

  RegressionLoss(Kind kind) {
    this.kind = kind;
  }

  @Override
  public String name() {
    return kind.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public Task task() {
    return Task.REGRESSION;
  }

  @Override
  public NDArray perExample(NDArray outputs, NDArray targets) {
    NDArray diff = predictions(outputs).sub(targets.toType(outputs.getDataType(), false));
    return switch (kind) {
      case MSE -> diff.square();
      case L1 -> diff.abs();
      case HUBER -> {
        NDArray a = diff.abs();
        NDArray small = a.lte(1f);
        yield diff.square()
            .mul(0.5f)
            .mul(small.toType(a.getDataType(), false))
            .add(a.sub(0.5f).mul(small.logicalNot().toType(a.getDataType(), false)));
      }
    };
  }

  /** A model's {@code (N, 1)} outputs as {@code (N)} predictions. */
  static NDArray predictions(NDArray outputs) {
    return outputs.reshape(outputs.getShape().get(0));
  }
}
