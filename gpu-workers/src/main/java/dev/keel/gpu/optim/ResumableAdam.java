package dev.keel.gpu.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.training.tracker.Tracker;

/**
 * Adam (bias-corrected, DJL's fused kernel) with savable state; the learning rate of update {@code
 * n} is {@code learningRate.getNewValue(n)}, a function of the saved step count, so a resumed run
 * goes on with the rate it would have had.
 */
public final class ResumableAdam extends ResumableOptimizer {
  private final Tracker learningRate;
  private final float beta1;
  private final float beta2;
  private final float epsilon;

  /** A constant learning rate. */
  public ResumableAdam(float learningRate, float weightDecay) {
    this(Tracker.fixed(learningRate), weightDecay);
  }

  public ResumableAdam(Tracker learningRate, float weightDecay) {
    this(learningRate, 0.9f, 0.999f, 1e-8f, weightDecay);
  }

  public ResumableAdam(
      Tracker learningRate, float beta1, float beta2, float epsilon, float weightDecay) {
    super(weightDecay);
    this.learningRate = learningRate;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = epsilon;
  }

  @Override
  public String kind() {
    return "adam";
  }

  @Override
  protected int stateArrays() {
    return 2;
  }

  @Override
  protected void update(NDArray weight, NDArray grad, NDArray[] state, int step) {
    double coef1 = 1.0 - Math.pow(beta1, step);
    double coef2 = 1.0 - Math.pow(beta2, step);
    float lr = learningRate.getNewValue(step);
    float biasCorrected = (float) (lr * Math.sqrt(coef2) / coef1);
    weight
        .getNDArrayInternal()
        .adamUpdate(
            new NDList(weight, grad, state[0], state[1]),
            new NDList(weight),
            lr,
            biasCorrected,
            getWeightDecay(),
            rescaleGrad,
            clipGrad,
            beta1,
            beta2,
            epsilon,
            true,
            false);
  }
}
