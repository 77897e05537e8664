package dev.keel.search;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ExperimentConfigValidator;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.space.HyperparameterSpace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a searcher needs from a config: the {@code hyperparameters.*}, {@code searcher.*} and
 * {@code reproducibility.*} problems of {@link ExperimentConfigValidator}, plus searcher-specific rules it does
 * not know (grid counts and size, PBT population vs. trials). Same paths, same {@link ConfigProblem}s.
 */
public final class SearchConfigValidator {
  /** Largest grid the grid searcher accepts. */
  public static final long MAX_GRID_POINTS = 100_000;

  private SearchConfigValidator() {}

  public static List<ConfigProblem> validate(ExperimentConfig config) {
    List<ConfigProblem> problems = new ArrayList<>();
    for (ConfigProblem p : ExperimentConfigValidator.validate(config)) {
      if (p.path().startsWith("hyperparameters.") || p.path().startsWith("searcher.") || p.path().startsWith("reproducibility.")) {
        problems.add(p);
      }
    }
    if (!problems.isEmpty()) {
      return problems;
    }
    SearcherConfig s = config.getSearcher();
    Map<String, Hyperparameter> hps = new TreeMap<>(config.getHyperparametersMap());
    switch (s.getName()) {
      case "grid" -> grid(config, hps, problems);
      case "pbt" -> {
        if (s.hasPopulationSize() && s.getPopulationSize() > s.getMaxTrials()) {
          problems.add(new ConfigProblem("searcher.population_size",
              "must be <= max_trials (" + s.getMaxTrials() + "), got " + s.getPopulationSize()));
        }
      }
      default -> { }
    }
    return problems;
  }

  private static void grid(ExperimentConfig config, Map<String, Hyperparameter> hps, List<ConfigProblem> problems) {
    hps.forEach((name, hp) -> {
      if (List.of("int", "double", "log").contains(hp.getType()) && !hp.hasCount()) {
        problems.add(new ConfigProblem("hyperparameters." + name + ".count",
            "required for the grid searcher (how many points of this " + hp.getType() + " range to try)"));
      }
    });
    if (problems.isEmpty()) {
      long points = HyperparameterSpace.of(hps).gridSize();
      if (points > MAX_GRID_POINTS) {
        problems.add(new ConfigProblem("hyperparameters",
            "the grid has " + (points == Long.MAX_VALUE ? "too many" : Long.toString(points)) + " points; at most " + MAX_GRID_POINTS));
      }
    }
  }
}
