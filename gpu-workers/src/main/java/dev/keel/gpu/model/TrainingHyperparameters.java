package dev.keel.gpu.model;

import java.util.Map;

/** Hyperparameters the training loop itself reads; every model accepts them. */
public final class TrainingHyperparameters {
  public static final String LR = "lr";
  public static final String BATCH_SIZE = "batch_size";
  public static final String OPTIMIZER = "optimizer";
  public static final String MOMENTUM = "momentum";
  public static final String WEIGHT_DECAY = "weight_decay";

  /** constant | cosine (see {@code Optimizers}). */
  public static final String LR_SCHEDULE = "lr_schedule";

  /** cosine: updates over which lr falls to {@link #LR_MIN}. */
  public static final String LR_DECAY_BATCHES = "lr_decay_batches";

  public static final String LR_MIN = "lr_min";

  /** none | flip (see {@code Augmentation}). */
  public static final String AUGMENT = "augment";

  /** adam | sgd (with momentum). */
  public static final Map<String, Object> DEFAULTS =
      Map.of(
          LR,
          1e-3,
          BATCH_SIZE,
          64L,
          OPTIMIZER,
          "adam",
          MOMENTUM,
          0.9,
          WEIGHT_DECAY,
          0.0,
          LR_SCHEDULE,
          "constant",
          LR_DECAY_BATCHES,
          0L,
          LR_MIN,
          0.0,
          AUGMENT,
          "none");

  private TrainingHyperparameters() {}
}
