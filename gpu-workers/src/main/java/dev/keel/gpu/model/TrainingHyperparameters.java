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
  /**
   * The training objective: softmax_cross_entropy (classification's default) | mse (regression's
   * default) | l1 | huber; empty means the task's default.
   */
  public static final String LOSS = "loss";

  /** Softmax cross-entropy's label smoothing in [0, 1] (default 0: none). */
  public static final String LABEL_SMOOTHING = "label_smoothing";

  public static final Map<String, Object> DEFAULTS =
      Map.ofEntries(
          Map.entry(LR, 1e-3),
          Map.entry(BATCH_SIZE, 64L),
          Map.entry(OPTIMIZER, "adam"),
          Map.entry(MOMENTUM, 0.9),
          Map.entry(WEIGHT_DECAY, 0.0),
          Map.entry(LR_SCHEDULE, "constant"),
          Map.entry(LR_DECAY_BATCHES, 0L),
          Map.entry(LR_MIN, 0.0),
          Map.entry(AUGMENT, "none"),
          Map.entry(LOSS, ""),
          Map.entry(LABEL_SMOOTHING, 0.0),
          Map.entry(InputNormalization.MEAN, ""),
          Map.entry(InputNormalization.STD, ""));

  private TrainingHyperparameters() {}
}
