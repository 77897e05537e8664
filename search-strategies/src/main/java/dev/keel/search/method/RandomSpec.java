package dev.keel.search.method;

import dev.keel.search.space.RandomSampler;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;

/**
 * {@code random}: {@code max_trials} samples from the prior, each trained to {@code max_length}.
 */
public final class RandomSpec implements SearchMethodSpec {

  @Override
  public String name() {
    return "random";
  }

  @Override
  public void validate(SearcherCheck check) {
    check.requireMaxTrials();
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    return setup.withDefaultConcurrency(
        IndependentTrialsSearch.ofSampler(
            setup.searcher().getMaxTrials(), new RandomSampler(setup.space()), setup.maxLength()));
  }
}
