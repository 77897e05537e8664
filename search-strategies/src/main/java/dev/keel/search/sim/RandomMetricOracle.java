package dev.keel.search.sim;

import com.google.protobuf.Value;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.core.Prng;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Uniformly random metrics (what {@code det preview-search} simulates with): shapes a search, not
 * its outcome.
 */
public final class RandomMetricOracle implements LearningCurveOracle {
  private final Map<String, Hyperparameter> hyperparameters;
  private final boolean smallerIsBetter;

  public RandomMetricOracle(Map<String, Hyperparameter> hyperparameters, boolean smallerIsBetter) {
    this.hyperparameters = new TreeMap<>(hyperparameters);
    this.smallerIsBetter = smallerIsBetter;
  }

  @Override
  public double metric(SortedMap<String, Value> hparams, long units, Prng noise) {
    return noise.nextDouble();
  }

  @Override
  public boolean smallerIsBetter() {
    return smallerIsBetter;
  }

  @Override
  public Map<String, Hyperparameter> hyperparameters() {
    return hyperparameters;
  }
}
