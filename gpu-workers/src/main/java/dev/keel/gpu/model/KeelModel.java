package dev.keel.gpu.model;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import java.util.Map;

/**
 * A trainable image classifier: the SPI behind {@code ModelSpec.name} (built-ins) and
 * {@code ModelSpec.class} (user classes, which need a public no-argument constructor).
 *
 * <p>The block takes a batch of images {@code (N, C, H, W)} with pixels scaled to {@code [0, 1]}
 * and returns logits {@code (N, numClasses)}. Every hyperparameter a trial may set must be declared
 * in {@link #hyperparameterDefaults()} (or be one of {@link TrainingHyperparameters#DEFAULTS});
 * anything else is rejected before training starts.
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

  /** A new, uninitialized block for these (already validated, defaults filled in) hyperparameters. */
  Block build(Hyperparameters hyperparameters);
}
