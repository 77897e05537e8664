package dev.keel.workflows.pipeline;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import java.util.Map;
import java.util.TreeMap;

/** What the pipeline derives from its request (deterministic). Lengths in epochs or records are converted by the trainer, which knows the batch size. */
final class PipelinePlan {
  static final double DEFAULT_VALIDATION_FRACTION = 5000.0 / 60000.0;
  static final long DEFAULT_CHECKPOINT_EVERY = 200;

  private PipelinePlan() {}

  /** The const values of a single-searcher experiment. */
  static Map<String, Value> constHparams(ExperimentConfig c) {
    Map<String, Value> out = new TreeMap<>();
    for (Map.Entry<String, Hyperparameter> e : c.getHyperparametersMap().entrySet()) {
      out.put(e.getKey(), e.getValue().getVal());
    }
    return out;
  }

  static double validationFraction(ExperimentConfig c) {
    return c.getData().hasValidationFraction() ? c.getData().getValidationFraction() : DEFAULT_VALIDATION_FRACTION;
  }
}
