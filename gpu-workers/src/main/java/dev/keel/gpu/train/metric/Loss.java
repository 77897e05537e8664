package dev.keel.gpu.train.metric;

import ai.djl.ndarray.NDArray;
import dev.keel.gpu.model.Task;

/** A training objective: one value per example from the model's outputs and the labels. */
public interface Loss {
  /** The name configs and logs use, e.g. {@code softmax_cross_entropy}. */
  String name();

  /** The kind of label it compares outputs with. */
  Task task();

  /** One loss per row of {@code outputs}; the trainer averages them over a batch. */
  NDArray perExample(NDArray outputs, NDArray labels);
}
