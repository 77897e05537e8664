package dev.keel.gpu.model;

import dev.keel.tables.dataset.LabeledExamples;
import java.util.List;
import java.util.Optional;

/**
 * What a table's label is, and so which losses and metrics apply: a class index, a float value (a
 * table written with {@code source.task: regression}) or an array of yes/no targets, one per label
 * ({@code source.task: multilabel}).
 */
public enum Task {
  CLASSIFICATION(List.of("softmax_cross_entropy")),
  REGRESSION(List.of("mse", "l1", "huber")),
  MULTILABEL(List.of("bce_with_logits"));

  private final List<String> losses;

  Task(List<String> losses) {
    this.losses = losses;
  }

  /**
   * The names of this task's losses (the {@code loss} hyperparameter's words), which the trainer's
   * losses declare too: models read the task from the loss without depending on the trainer.
   */
  public List<String> losses() {
    return losses;
  }

  /** The task whose loss {@code name} is, if any. */
  public static Optional<Task> ofLoss(String name) {
    for (Task t : values()) {
      if (t.losses.contains(name)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** The task of a table's examples: how its labels are stored. */
  public static Task of(LabeledExamples data) {
    if (data.values() == null) {
      return CLASSIFICATION;
    }
    return data.multilabel() ? MULTILABEL : REGRESSION;
  }

  /** The loss a model of this task trains against when the {@code loss} hyperparameter is empty. */
  public String defaultLoss() {
    return losses.get(0);
  }

  public String spelling() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
