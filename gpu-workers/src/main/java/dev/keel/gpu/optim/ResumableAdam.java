package dev.keel.gpu.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;

/** Adam (bias-corrected, DJL's fused kernel) with a constant learning rate and savable state. */
public final class ResumableAdam extends ResumableOptimizer {
  private final float learningRate;
  private final float beta1;
  private final float beta2;
  private final float epsilon;

  public ResumableAdam(float learningRate, float weightDecay) {
    this(learningRate, 0.9f, 0.999f, 1e-8f, weightDecay);
  }

  public ResumableAdam(float learningRate, float beta1, float beta2, float epsilon, float weightDecay) {
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
    float biasCorrected = (float) (learningRate * Math.sqrt(coef2) / coef1);
    weight
        .getNDArrayInternal()
        .adamUpdate(
            new NDList(weight, grad, state[0], state[1]),
            new NDList(weight),
            learningRate,
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
