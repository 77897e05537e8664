package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;

/** Cross-entropy of the softmax of logits against integer class labels. */
final class SoftmaxCrossEntropy implements Loss {
  @Override
  public String name() {
    return "softmax_cross_entropy";
  }

  @Override
  public NDArray perExample(NDArray logits, NDArray labels) {
    return logits.logSoftmax(1).get(new NDIndex().addAllDim().addPickDim(labels)).neg();
  }
}
