package dev.keel.gpu.model;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import dev.keel.tables.dataset.LabeledExamples;
import java.util.Map;

/**
 * A trainable classifier: the SPI behind {@code ModelSpec.name} (built-ins) and {@code
 * ModelSpec.class} (user classes, which need a public no-argument constructor).
 *
 * <p>The block takes a batch of examples, images {@code (N, C, H, W)} with pixels scaled to {@code
 * [0, 1]} (then normalised per channel, see {@link InputNormalization}) or feature vectors {@code
 * (N, features)}, and returns logits {@code (N, numClasses)}. Image models need implement nothing
 * about data: the defaults accept an images table whose image shape is {@link #inputShape()} and
 * whose labels fit {@link #numClasses()}. A model whose input depends on the table (e.g. {@code
 * tabular_mlp}) overrides {@link #fitTo}, {@link #inputShape(Hyperparameters)} and, to learn input
 * statistics, {@link #fitInputs}. Every hyperparameter a trial may set must be declared in {@link
 * #hyperparameterDefaults()} (or be one of {@link TrainingHyperparameters#DEFAULTS}); anything else
 * is rejected before training starts.
 */
public interface KeelModel {

  /** The name configs use, e.g. {@code fashion_cnn}. */
  String name();

  /**
   * Model-specific hyperparameters with their defaults (Double, Long/Integer, Boolean or String).
   * May also override the defaults of {@link TrainingHyperparameters#DEFAULTS}.
   */
  Map<String, Object> hyperparameterDefaults();

  /** Shape of one example, without the batch axis: {@code (channels, rows, cols)}. */
  Shape inputShape();

  int numClasses();

  /**
   * A new, uninitialized block for these (already validated, defaults filled in) hyperparameters.
   */
  Block build(Hyperparameters hyperparameters);

  /**
   * Checks these (already validated, defaults filled in) hyperparameters without allocating
   * tensors; the default builds the block and drops it.
   *
   * @throws InvalidFieldException naming the hyperparameter or model field that is unusable
   */
  default void check(Hyperparameters hyperparameters) {
    build(hyperparameters);
  }

  /**
   * Shape of one example for these hyperparameters (those of {@link #fitTo}'s result); the default
   * ignores them.
   */
  default Shape inputShape(Hyperparameters hyperparameters) {
    return inputShape();
  }

  /**
   * Checks that this model can learn from (or score) the table and returns the hyperparameters to
   * build with for it. A model sized by its table records the sizes there, so a checkpoint's
   * hyperparameters rebuild the same block without the table. Must be idempotent: fitting the
   * result to the same table again returns it unchanged, and a different size is an error.
   *
   * @throws InvalidFieldException (field {@code data}) naming the table and this model when they do
   *     not fit
   */
  default Hyperparameters fitTo(Hyperparameters hyperparameters, DataShape data) {
    if (data.kind() != DataShape.Kind.IMAGES || !data.example().equals(inputShape())) {
      throw data.notTakenBy(name(), "images of shape " + inputShape());
    }
    data.requireAtMostClasses(name(), numClasses());
    return hyperparameters;
  }

  /**
   * Learns what the block needs to know about its input from the training rows only (never from
   * validation or test rows), after the block is initialized and before the first step, e.g. the
   * mean and standard deviation of each feature. Whatever it learns must live in the block's
   * parameters, so that checkpoints carry it. The default learns nothing.
   */
  default void fitInputs(Block block, LabeledExamples trainingRows) {}
}
