package dev.keel.gpu.train;

import dev.keel.api.checkpoint.CheckpointMetrics;

/**
 * Metric names in checkpoints and results. What each validation metric measures, and which of them
 * {@code searcher.metric} can name, is {@link dev.keel.gpu.train.metric.ValidationMetrics}.
 */
public final class Metrics {
  public static final String VALIDATION_ACCURACY = "validation_accuracy";

  /** Same value as {@link #VALIDATION_ACCURACY}. */
  public static final String ACCURACY = "accuracy";

  public static final String VALIDATION_LOSS = "validation_loss";

  /** Mean training loss of the last (up to) 50 batches. */
  public static final String TRAIN_LOSS = CheckpointMetrics.TRAIN_LOSS;

  private Metrics() {}
}
