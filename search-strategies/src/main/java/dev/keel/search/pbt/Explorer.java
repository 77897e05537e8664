package dev.keel.search.pbt;

import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import dev.keel.search.space.ConstDimension;
import dev.keel.search.space.Dimension;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.space.NumericDimension;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * PBT's explore step, per hyperparameter in name order: with {@code resampleProbability} draw it
 * from its prior; otherwise multiply a numeric one by {@code 1 - perturbFactor} or {@code 1 +
 * perturbFactor} (equally likely, kept in range) and keep a categorical one. Consts never change.
 */
final class Explorer {
  private final HyperparameterSpace space;
  private final double perturbFactor;
  private final double resampleProbability;

  Explorer(HyperparameterSpace space, double perturbFactor, double resampleProbability) {
    this.space = space;
    this.perturbFactor = perturbFactor;
    this.resampleProbability = resampleProbability;
  }

  SortedMap<String, Value> explore(SortedMap<String, Value> parent, Prng rng) {
    SortedMap<String, Value> child = new TreeMap<>();
    for (Dimension d : space.dimensions()) {
      Value v = parent.get(d.name());
      if (d instanceof ConstDimension) {
        child.put(d.name(), v);
      } else if (rng.nextDouble() < resampleProbability) {
        child.put(d.name(), d.sample(rng));
      } else if (d instanceof NumericDimension numeric) {
        double factor = rng.nextDouble() < 0.5 ? 1 - perturbFactor : 1 + perturbFactor;
        child.put(d.name(), numeric.scale(v, factor));
      } else {
        child.put(d.name(), v);
      }
    }
    return child;
  }
}
