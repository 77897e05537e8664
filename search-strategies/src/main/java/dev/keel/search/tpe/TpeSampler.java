package dev.keel.search.tpe;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import dev.keel.search.core.RankedTree;
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
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Independent TPE: split the observations at one training length into the best {@code gamma}
 * fraction (at most {@value #MAX_GOOD}) and the rest, fit a density to each per dimension, draw
 * candidates from the good density and keep the one with the largest good/bad density ratio. Below
 * {@code startupTrials} observations at every length it samples from the prior. Numeric dimensions
 * are modelled in their unit interval (log ones in the exponent), categorical ones by frequencies,
 * consts are fixed.
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

  /**
   * The observations of each length, best first and equal scores in arrival order (what a stable
   * sort of them gives): kept up to date as they arrive, so a draw sorts nothing and costs O(log
   * n), not O(n log n). Not in snapshots: {@link #loadState} rebuilds it from the observations,
   * which are in arrival order.
   */
  private final TreeMap<Long, RankedTree<Observation>> byLength = new TreeMap<>();

  private long arrivals;

  static final class State {
    ArrayList<Observation> observations = new ArrayList<>();
  }

  static final class Observation {
    TreeMap<String, Value> hparams;
    long units;
    double score;

    /** Arrival order, which breaks ties between equal scores. */
    transient long arrival;
  }

  private static final Comparator<Observation> BEST_FIRST =
      Comparator.<Observation>comparingDouble(o -> o.score).thenComparingLong(o -> o.arrival);

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
    index(o);
  }

  @Override
  public void forget(SortedMap<String, Value> hparams) {
    for (Observation o : state.observations) {
      if (o.hparams.equals(hparams)) {
        byLength.get(o.units).remove(o);
      }
    }
    state.observations.removeIf(o -> o.hparams.equals(hparams));
  }

  private void index(Observation o) {
    o.arrival = arrivals++;
    byLength.computeIfAbsent(o.units, u -> new RankedTree<>(BEST_FIRST)).insert(o, false);
  }

  /** Observations made so far. */
  public int observations() {
    return state.observations.size();
  }

  @Override
  public SortedMap<String, Value> next(Prng rng) {
    RankedTree<Observation> sorted = modelledLevel();
    if (sorted == null) {
      return prior.next(rng);
    }
    int nGood = Math.min(MAX_GOOD, Math.max(1, (int) Math.ceil(gamma * sorted.size())));
    List<Observation> good = range(sorted, 0, nGood);
    List<Observation> bad = thin(sorted, nGood);

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
          ratio +=
              ((ParzenEstimator) goodModels[d]).logDensity(u)
                  - ((ParzenEstimator) badModels[d]).logDensity(u);
        } else if (dim instanceof CategoricalDimension categorical) {
          int k = ((CategoricalEstimator) goodModels[d]).sample(rng);
          candidate.put(dim.name(), categorical.values().get(k));
          ratio +=
              ((CategoricalEstimator) goodModels[d]).logDensity(k)
                  - ((CategoricalEstimator) badModels[d]).logDensity(k);
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

  /**
   * The observations at the longest length that has at least {@code startupTrials} of them, or
   * null.
   */
  private RankedTree<Observation> modelledLevel() {
    for (RankedTree<Observation> level : byLength.descendingMap().values()) {
      if (level.size() >= startupTrials) {
        return level;
      }
    }
    return null;
  }

  private static List<Observation> range(RankedTree<Observation> sorted, int from, int to) {
    List<Observation> out = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      out.add(sorted.get(i));
    }
    return out;
  }

  /**
   * The observations ranked from {@code from} on, at most {@value #MAX_BAD} of them evenly spread.
   */
  private static List<Observation> thin(RankedTree<Observation> sorted, int from) {
    int bad = sorted.size() - from;
    if (bad <= MAX_BAD) {
      return range(sorted, from, sorted.size());
    }
    List<Observation> out = new ArrayList<>(MAX_BAD);
    for (int i = 0; i < MAX_BAD; i++) {
      out.add(sorted.get(from + (int) ((long) i * bad / MAX_BAD)));
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
      int[] idx =
          obs.stream()
              .mapToInt(o -> categorical.indexOf(o.hparams.get(dim.name())))
              .filter(i -> i >= 0)
              .toArray();
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
    byLength.clear();
    arrivals = 0;
    state.observations.forEach(this::index);
  }
}
