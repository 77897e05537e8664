package dev.keel.search.hyperband;

import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;
import dev.keel.search.tpe.TpeSpec;

/**
 * {@code hyperband}: owns {@code eta}. It also reads {@code max_rungs} (checked by ASHA's spec,
 * which shares it) and the sampler settings (checked by {@link TpeSpec}).
 */
public final class HyperbandSpec implements SearchMethodSpec {

  @Override
  public String name() {
    return "hyperband";
  }

  @Override
  public void checkSettings(SearcherCheck check) {
    check.atLeast("eta", check.searcher().hasEta(), check.searcher().getEta(), 2);
  }

  @Override
  public void validate(SearcherCheck check) {
    check.requireMaxTrials();
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    return setup.withDefaultConcurrency(
        new HyperbandSearch(
            HyperbandPlan.of(setup.searcher()), TpeSpec.sampler(setup.space(), setup.options())));
  }
}
