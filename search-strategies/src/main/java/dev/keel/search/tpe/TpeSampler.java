package dev.keel.search.tpe;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.CategoricalDimension;
import dev.keel.search.space.ConstDimension;
import dev.keel.search.space.Dimension;
import dev.keel.search.space.HyperparameterSampler;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.space.NumericDimension;
import dev.keel.search.space.RandomSampler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Independent TPE: split the observations at one training length into the best {@code gamma} fraction (at most
 * {@value #MAX_GOOD}) and the rest, fit a density to each per dimension, draw candidates from the good density
 * and keep the one with the largest good/bad density ratio. Below {@code startupTrials} observations at every
 * length it samples from the prior. Numeric dimensions are modelled in their unit interval (log ones in the
 * exponent), categorical ones by frequencies, consts are fixed.
 */
public final class TpeSampler implements HyperparameterSampler {
  static final int MAX_GOOD = 25;
  static final int MAX_BAD = 200;

  private final HyperparameterSpace space;
  private final RandomSampler prior;
  private final int startupTrials;
  private final double gamma;
  private final int candidates;
  private State state = new State();

  static final class State {
    ArrayList<Observation> observations = new ArrayList<>();
  }

  static final class Observation {
    TreeMap<String, Value> hparams;
    long units;
    double score;
  }

  public TpeSampler(HyperparameterSpace space, int startupTrials, double gamma, int candidates) {
    this.space = space;
    this.prior = new RandomSampler(space);
    this.startupTrials = startupTrials;
    this.gamma = gamma;
    this.candidates = candidates;
  }

  @Override
  public void observe(SortedMap<String, Value> hparams, long units, double score) {
    Observation o = new Observation();
    o.hparams = new TreeMap<>(hparams);
    o.units = units;
    o.score = score;
    state.observations.add(o);
  }

  @Override
  public void forget(SortedMap<String, Value> hparams) {
    state.observations.removeIf(o -> o.hparams.equals(hparams));
  }

  /** Observations made so far. */
  public int observations() {
    return state.observations.size();
  }

  @Override
  public SortedMap<String, Value> next(Prng rng) {
    List<Observation> level = modelledLevel();
    if (level == null) {
      return prior.next(rng);
    }
    List<Observation> sorted = new ArrayList<>(level);
    sorted.sort(Comparator.comparingDouble(o -> o.score)); // stable: ties keep arrival order
    int nGood = Math.min(MAX_GOOD, Math.max(1, (int) Math.ceil(gamma * sorted.size())));
    List<Observation> good = sorted.subList(0, nGood);
    List<Observation> bad = thin(sorted.subList(nGood, sorted.size()));

    List<Dimension> dims = space.dimensions();
    Object[] goodModels = new Object[dims.size()];
    Object[] badModels = new Object[dims.size()];
    for (int d = 0; d < dims.size(); d++) {
      goodModels[d] = model(dims.get(d), good);
      badModels[d] = model(dims.get(d), bad);
    }
    SortedMap<String, Value> best = null;
    double bestRatio = Double.NEGATIVE_INFINITY;
    for (int c = 0; c < candidates; c++) {
      SortedMap<String, Value> candidate = new TreeMap<>();
      double ratio = 0;
      for (int d = 0; d < dims.size(); d++) {
        Dimension dim = dims.get(d);
        if (dim instanceof NumericDimension numeric) {
          double u = ((ParzenEstimator) goodModels[d]).sample(rng);
          candidate.put(dim.name(), numeric.fromUnit(u));
          ratio += ((ParzenEstimator) goodModels[d]).logDensity(u) - ((ParzenEstimator) badModels[d]).logDensity(u);
        } else if (dim instanceof CategoricalDimension categorical) {
          int k = ((CategoricalEstimator) goodModels[d]).sample(rng);
          candidate.put(dim.name(), categorical.values().get(k));
          ratio += ((CategoricalEstimator) goodModels[d]).logDensity(k) - ((CategoricalEstimator) badModels[d]).logDensity(k);
        } else {
          candidate.put(dim.name(), ((ConstDimension) dim).value());
        }
      }
      if (ratio > bestRatio) {
        bestRatio = ratio;
        best = candidate;
      }
    }
    return best;
  }

  /** The observations at the longest length that has at least {@code startupTrials} of them, or null. */
  private List<Observation> modelledLevel() {
    Map<Long, List<Observation>> byLength = new TreeMap<>(Comparator.reverseOrder());
    for (Observation o : state.observations) {
      byLength.computeIfAbsent(o.units, k -> new ArrayList<>()).add(o);
    }
    for (List<Observation> level : byLength.values()) {
      if (level.size() >= startupTrials) {
        return level;
      }
    }
    return null;
  }

  private static List<Observation> thin(List<Observation> bad) {
    if (bad.size() <= MAX_BAD) {
      return bad;
    }
    List<Observation> out = new ArrayList<>(MAX_BAD);
    for (int i = 0; i < MAX_BAD; i++) {
      out.add(bad.get((int) ((long) i * bad.size() / MAX_BAD)));
    }
    return out;
  }

  private static Object model(Dimension dim, List<Observation> obs) {
    if (dim instanceof NumericDimension numeric) {
      double[] points = new double[obs.size()];
      for (int i = 0; i < points.length; i++) {
        points[i] = numeric.toUnit(obs.get(i).hparams.get(dim.name()));
      }
      return new ParzenEstimator(points);
    }
    if (dim instanceof CategoricalDimension categorical) {
      int[] idx = obs.stream().mapToInt(o -> categorical.indexOf(o.hparams.get(dim.name()))).filter(i -> i >= 0).toArray();
      return new CategoricalEstimator(idx, categorical.values().size());
    }
    return null;
  }

  @Override
  public JsonNode saveState() {
    return StateCodec.toTree(state);
  }

  @Override
  public void loadState(JsonNode node) {
    state = StateCodec.fromTree(node, State.class);
  }
}
