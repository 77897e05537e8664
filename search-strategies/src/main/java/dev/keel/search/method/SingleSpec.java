package dev.keel.search.method;

import dev.keel.api.config.ExperimentConfigValidator;
import dev.keel.search.space.RandomSampler;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;

/** {@code single}: one trial of the const hyperparameters, trained to {@code max_length}. */
public final class SingleSpec implements SearchMethodSpec {
  public static final String NAME = "single";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void validate(SearcherCheck check) {
    if (check.searcher().hasMaxTrials() && check.searcher().getMaxTrials() > 1) {
      check.field(
          "max_trials",
          "the single searcher runs exactly 1 trial, got " + check.searcher().getMaxTrials());
    }
    check
        .config()
        .getHyperparametersMap()
        .forEach(
            (name, hp) -> {
              // an unknown type is already reported by the hyperparameter's own rules
              if (ExperimentConfigValidator.HP_TYPES.contains(hp.getType())
                  && !"const".equals(hp.getType())) {
                check.add(
                    "hyperparameters." + name,
                    "the single searcher needs const values, got type " + hp.getType());
              }
            });
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    return new BuiltMethod(
        IndependentTrialsSearch.ofSampler(1, new RandomSampler(setup.space()), setup.maxLength()),
        1);
  }
}
