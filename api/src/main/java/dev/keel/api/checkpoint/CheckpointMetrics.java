package dev.keel.api.checkpoint;

/**
 * Keys of {@code CheckpointRef.metrics} that Keel itself writes, next to the model's own metrics.
 * Checkpoint GC ranks by them and warm starts look checkpoints up by them, so their writers and
 * readers must agree on one spelling.
 */
public final class CheckpointMetrics {
  /**
   * The value of the experiment's {@code searcher.metric} at the validation that took the
   * checkpoint.
   */
  public static final String SEARCHER_METRIC = "searcher_metric";

  /**
   * The trial's length at that validation, in the unit of the experiment's {@code
   * searcher.max_length}.
   */
  public static final String LENGTH = "length";

  /**
   * Mean training loss of the last (up to) 50 batches before the checkpoint: in its metadata, and
   * in the metrics a trial reports with each validation (from the training result's final loss).
   */
  public static final String TRAIN_LOSS = "train_loss";

  private CheckpointMetrics() {}
}
