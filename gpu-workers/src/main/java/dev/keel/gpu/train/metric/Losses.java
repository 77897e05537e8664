package dev.keel.gpu.train.metric;

import dev.keel.gpu.model.Task;
import java.util.List;
import java.util.Optional;

/** Every loss Keel trains with, listed once. */
public final class Losses {
  public static final Loss SOFTMAX_CROSS_ENTROPY = new SoftmaxCrossEntropy(0);
  public static final Loss MSE = new RegressionLoss(RegressionLoss.Kind.MSE);
  public static final Loss L1 = new RegressionLoss(RegressionLoss.Kind.L1);
  public static final Loss HUBER = new RegressionLoss(RegressionLoss.Kind.HUBER);
  public static final Loss BCE_WITH_LOGITS = new BinaryCrossEntropyWithLogits();

  /** What a classification model trains against when nothing else is asked for. */
  public static final Loss DEFAULT = SOFTMAX_CROSS_ENTROPY;

  private static final List<Loss> ALL =
      List.of(SOFTMAX_CROSS_ENTROPY, MSE, L1, HUBER, BCE_WITH_LOGITS);

  private Losses() {}

  public static List<Loss> all() {
    return ALL;
  }

  static {
    for (Loss l : ALL) {
      if (!l.task().losses().contains(l.name())) {
        throw new IllegalStateException(
            "loss " + l.name() + " is missing from Task." + l.task() + ".losses()");
      }
    }
  }

  public static Optional<Loss> of(String name) {
    return ALL.stream().filter(l -> l.name().equals(name)).findFirst();
  }

  /** What a model of {@code task} trains against when the {@code loss} hyperparameter is empty. */
  public static Loss defaultFor(Task task) {
    return of(task.defaultLoss()).orElseThrow();
  }

  /**
   * The loss a trial trains with: {@code name} (empty: the task's default), softmax cross-entropy
   * with {@code labelSmoothing}.
   *
   * @throws IllegalArgumentException naming the hyperparameter when the loss is unknown, is for
   *     another task, or the smoothing is outside [0, 1]
   */
  public static Loss choose(Task task, String name, double labelSmoothing) {
    Loss loss =
        name == null || name.isBlank()
            ? defaultFor(task)
            : of(name.strip())
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "hyperparameters.loss: unknown loss '"
                                + name
                                + "' (accepts: "
                                + String.join(", ", ALL.stream().map(Loss::name).toList())
                                + ")"));
    if (loss.task() != task) {
      throw new IllegalArgumentException(
          "hyperparameters.loss: '"
              + loss.name()
              + "' is a "
              + loss.task().spelling()
              + " loss, the table's task is "
              + task.spelling());
    }
    if (labelSmoothing != 0) {
      if (task != Task.CLASSIFICATION) {
        throw new IllegalArgumentException(
            "hyperparameters.label_smoothing: only classification smooths labels");
      }
      return new SoftmaxCrossEntropy(labelSmoothing);
    }
    return loss;
  }
}
