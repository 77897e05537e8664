package dev.keel.gpu.model;

import java.util.Map;

/** Hyperparameters the training loop itself reads; every model accepts them. */
public final class TrainingHyperparameters {
  public static final String LR = "lr";
  public static final String BATCH_SIZE = "batch_size";
  public static final String OPTIMIZER = "optimizer";
  public static final String MOMENTUM = "momentum";
  public static final String WEIGHT_DECAY = "weight_decay";

  /** adam | sgd (with momentum). */
  public static final Map<String, Object> DEFAULTS =
      Map.of(LR, 1e-3, BATCH_SIZE, 64L, OPTIMIZER, "adam", MOMENTUM, 0.9, WEIGHT_DECAY, 0.0);

  private TrainingHyperparameters() {}
}
