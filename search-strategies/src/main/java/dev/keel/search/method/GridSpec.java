package dev.keel.search.method;

import com.google.protobuf.Value;
import dev.keel.api.config.ConfigLimits;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code grid}: every point of the hyperparameter grid, in order, cut to {@code max_trials} if set.
 * Every numeric hyperparameter needs a {@code count}, and the grid is bounded so a typo cannot plan
 * millions of trials.
 */
public final class GridSpec implements SearchMethodSpec {
  /** Largest grid the grid searcher accepts. */
  public static final long MAX_GRID_POINTS = ConfigLimits.MAX_GRID_POINTS;

  @Override
  public String name() {
    return "grid";
  }

  @Override
  public void validate(SearcherCheck check) {
    Map<String, Hyperparameter> hps = new TreeMap<>(check.config().getHyperparametersMap());
    boolean counted = true;
    for (Map.Entry<String, Hyperparameter> e : hps.entrySet()) {
      String type = e.getValue().getType();
      if (List.of("int", "double", "log").contains(type) && !e.getValue().hasCount()) {
        check.add(
            "hyperparameters." + e.getKey() + ".count",
            "required for the grid searcher (how many points of this " + type + " range to try)");
        counted = false;
      }
    }
    if (counted && check.hyperparametersWellFormed()) {
      long points = HyperparameterSpace.of(hps).gridSize();
      if (points > MAX_GRID_POINTS) {
        check.add(
            "hyperparameters",
            "the grid has "
                + (points == Long.MAX_VALUE ? "too many" : Long.toString(points))
                + " points; at most "
                + MAX_GRID_POINTS
                + " (Keel's limit)");
      }
    }
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    List<SortedMap<String, Value>> points = setup.space().grid();
    if (setup.searcher().hasMaxTrials() && setup.searcher().getMaxTrials() < points.size()) {
      points = points.subList(0, setup.searcher().getMaxTrials());
    }
    return setup.withDefaultConcurrency(
        IndependentTrialsSearch.ofPoints(points, setup.maxLength()));
  }
}
