package dev.keel.workflows.pipeline;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import java.util.Map;
import java.util.TreeMap;

/** What the pipeline derives from its request (deterministic). Lengths in epochs or records are converted by the trainer, which knows the batch size. */
final class PipelinePlan {
  private PipelinePlan() {}

  /** The const values of a single-searcher experiment. */
  static Map<String, Value> constHparams(ExperimentConfig c) {
    Map<String, Value> out = new TreeMap<>();
    for (Map.Entry<String, Hyperparameter> e : c.getHyperparametersMap().entrySet()) {
      out.put(e.getKey(), e.getValue().getVal());
    }
    return out;
  }
}
