package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import dev.keel.gpu.model.Task;

/**
 * Cross-entropy of the softmax of logits against integer class labels. With label smoothing {@code
 * s} the target is {@code 1 - s} on the label plus {@code s} spread evenly over every class
 * (PyTorch's {@code CrossEntropyLoss(label_smoothing=s)}), so a model is not pushed towards
 * infinite logits.
 */
final class SoftmaxCrossEntropy implements Loss {
  private final double smoothing;

  SoftmaxCrossEntropy(double smoothing) {
    if (!(smoothing >= 0 && smoothing <= 1)) {
      throw new IllegalArgumentException(
          "hyperparameters.label_smoothing: must be in [0, 1], got " + smoothing);
    }
    this.smoothing = smoothing;
  }

  double smoothing() {
    return smoothing;
  }

  @Override
  public String name() {
    return "softmax_cross_entropy";
  }

  @Override
  public Task task() {
    return Task.CLASSIFICATION;
  }

  @Override
  public NDArray perExample(NDArray logits, NDArray labels) {
    NDArray logp = logits.logSoftmax(1);
    NDArray nll = logp.get(new NDIndex().addAllDim().addPickDim(labels)).neg();
    if (smoothing == 0) {
      return nll;
    }
    NDArray uniform = logp.mean(new int[] {1}).neg();
    return nll.mul(1 - smoothing).add(uniform.mul(smoothing));
  }
}
