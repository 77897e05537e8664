package dev.keel.search.sim;

import com.google.protobuf.Value;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.core.Prng;
import java.util.Map;
import java.util.SortedMap;

/**
 * What training would report: the metric of a configuration after a training length, with noise.
 */
public interface LearningCurveOracle {
  /**
   * The metric observed after training {@code hparams} for {@code units} (noise drawn from {@code
   * noise}).
   */
  double metric(SortedMap<String, Value> hparams, long units, Prng noise);

  /** Simulated seconds one unit of training takes for this configuration. */
  default double secondsPerUnit(SortedMap<String, Value> hparams) {
    return 1.0;
  }

  boolean smallerIsBetter();

  /** The hyperparameter space the oracle answers for (to build experiment configs). */
  Map<String, Hyperparameter> hyperparameters();
}
