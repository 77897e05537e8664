package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.model.Task;
import java.util.List;
import java.util.Map;

/**
 * A figure measured on the validation rows after training, which {@code searcher.metric} can name.
 * It is gathered batch by batch, so a split of any size is measured in one pass.
 */
public interface Metric {
  /** The name in results, checkpoints and configs, e.g. {@code validation_accuracy}. */
  String name();

  /** Other names the same value is reported under (e.g. {@code accuracy}). */
  default List<String> aliases() {
    return List.of();
  }

  /** The kind of table it measures a model on. */
  default Task task() {
    return Task.CLASSIFICATION;
  }

  /**
   * Whether it is also reported per label of a multilabel table, as {@code <name>.<label>} (a name
   * {@code searcher.metric} may use too).
   */
  default boolean perLabel() {
    return false;
  }

  /** The searcher's direction for it: true for losses and errors. */
  boolean smallerIsBetter();

  /** A fresh tally for one evaluation. */
  Tally start();

  /** One evaluation's running state. */
  interface Tally {
    /**
     * Adds one batch: the model's outputs, the labels and the loss of each example (which the
     * evaluation computes once for every metric).
     */
    void add(NDArray outputs, NDArray labels, NDArray perExampleLoss);

    /** The figure over every batch added, of {@code examples} rows in all. */
    double value(int examples);

    /** By label index, the figure of each label that has one ({@link Metric#perLabel()}). */
    default Map<Integer, Double> perLabel() {
      return Map.of();
    }
  }
}
