package dev.keel.search.spec;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * What a method's rules look at, and where their problems go. Paths are relative to the experiment
 * ({@code searcher.divisor}, {@code hyperparameters.lr.count}); a pipeline request nests them under
 * its {@code experiment}.
 */
public final class SearcherCheck {
  private final ExperimentConfig config;
  private final boolean hyperparametersWellFormed;
  private final List<ConfigProblem> problems = new ArrayList<>();

  public SearcherCheck(ExperimentConfig config, boolean hyperparametersWellFormed) {
    this.config = config;
    this.hyperparametersWellFormed = hyperparametersWellFormed;
  }

  public ExperimentConfig config() {
    return config;
  }

  public SearcherConfig searcher() {
    return config.getSearcher();
  }

  /**
   * Every hyperparameter passed its shape rules, so the search space can be built (e.g. to size a
   * grid).
   */
  public boolean hyperparametersWellFormed() {
    return hyperparametersWellFormed;
  }

  public void add(String path, String message) {
    problems.add(new ConfigProblem(path, message));
  }

  /** A problem of {@code searcher.<field>}. */
  public void field(String field, String message) {
    add("searcher." + field, message);
  }

  /** When set, {@code searcher.<field>} must be at least {@code min}. */
  public void atLeast(String field, boolean set, long value, long min) {
    if (set && value < min) {
      field(field, "must be >= " + min + ", got " + value);
    }
  }

  /** {@code searcher.<field>} must be at most {@code max}, one of {@link ConfigLimits}. */
  public void atMost(String field, long value, long max) {
    if (value > max) {
      field(field, ConfigLimits.atMost(max, value));
    }
  }

  /** The method runs {@code max_trials} trials, so the config must say how many. */
  public void requireMaxTrials() {
    if (!searcher().hasMaxTrials()) {
      field("max_trials", "required for searcher " + searcher().getName());
    }
  }

  public List<ConfigProblem> problems() {
    return List.copyOf(problems);
  }
}
