package dev.keel.gpu.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.training.tracker.Tracker;

/**
 * SGD with (heavy-ball) momentum (0 = plain SGD) and savable momentum buffers; the learning rate of
 * update {@code n} is {@code learningRate.getNewValue(n)}.
 */
public final class ResumableSgd extends ResumableOptimizer {
  private final Tracker learningRate;
  private final float momentum;

  /** A constant learning rate. */
  public ResumableSgd(float learningRate, float momentum, float weightDecay) {
    this(Tracker.fixed(learningRate), momentum, weightDecay);
  }

  public ResumableSgd(Tracker learningRate, float momentum, float weightDecay) {
    super(weightDecay);
    if (!(momentum >= 0f && momentum < 1f)) {
      throw new IllegalArgumentException("momentum must be in [0, 1), got " + momentum);
    }
    this.learningRate = learningRate;
    this.momentum = momentum;
  }

  @Override
  public String kind() {
    return "sgd";
  }

  @Override
  protected int stateArrays() {
    return 1;
  }

  @Override
  protected void update(NDArray weight, NDArray grad, NDArray[] state, int step) {
    weight
        .getNDArrayInternal()
        .sgdUpdate(
            new NDList(weight, grad, state[0]),
            new NDList(weight),
            learningRate.getNewValue(step),
            getWeightDecay(),
            rescaleGrad,
            clipGrad,
            momentum,
            true);
  }
}
