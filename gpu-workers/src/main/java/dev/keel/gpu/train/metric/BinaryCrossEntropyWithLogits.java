package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.model.Task;

/**
 * Binary cross-entropy of each label's logit against its target in [0, 1], averaged over the labels
 * of a row (PyTorch's {@code BCEWithLogitsLoss}: averaged over a batch too, it is the same mean).
 * Computed as {@code max(x, 0) - x*y + log(1 + exp(-|x|))}, which does not overflow for large
 * logits as {@code log(sigmoid(x))} would.
 */
final class BinaryCrossEntropyWithLogits implements Loss {
  @Override
  public String name() {
    return "bce_with_logits";
  }

  @Override
  public Task task() {
    return Task.MULTILABEL;
  }

  @Override
  public NDArray perExample(NDArray logits, NDArray targets) {
    NDArray y = targets.toType(logits.getDataType(), false).reshape(logits.getShape());
    NDArray perLabel =
        logits.maximum(0f).sub(logits.mul(y)).add(logits.abs().neg().exp().add(1f).log());
    return perLabel.mean(new int[] {1});
  }
}
