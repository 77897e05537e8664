package dev.keel.api.config;

import dev.keel.api.v1.ExperimentConfig;
import java.util.List;

/**
 * The rules of an experiment's searcher, which this module does not own: search-strategies knows
 * the search methods, their settings and what each needs of the hyperparameters. The validators
 * here call them where the searcher section sits, so every problem comes back in document order and
 * under the right parent path.
 */
@FunctionalInterface
public interface SearcherRules {

  /**
   * Problems with paths relative to the experiment ({@code searcher.divisor}, {@code
   * hyperparameters.lr}).
   *
   * @param hyperparametersWellFormed whether every hyperparameter passed its shape rules, so that
   *     rules which need the whole search space (a grid's size) can build it
   */
  List<ConfigProblem> check(ExperimentConfig config, boolean hyperparametersWellFormed);
}
