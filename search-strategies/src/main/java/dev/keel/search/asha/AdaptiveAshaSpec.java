package dev.keel.search.asha;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.config.EnumNames;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;
import dev.keel.search.tpe.TpeSpec;

/**
 * {@code adaptive_asha}: owns {@code divisor}, {@code max_rungs} (Hyperband reads it too) and
 * {@code mode}. Its trials are drawn by the sampler {@link TpeSpec} configures.
 */
public final class AdaptiveAshaSpec implements SearchMethodSpec {

  @Override
  public String name() {
    return "adaptive_asha";
  }

  @Override
  public void checkSettings(SearcherCheck check) {
    SearcherConfig s = check.searcher();
    check.atLeast("divisor", s.hasDivisor(), s.getDivisor(), 2);
    check.atLeast("max_rungs", s.hasMaxRungs(), s.getMaxRungs(), 1);
    check.atMost("max_rungs", s.getMaxRungs(), ConfigLimits.MAX_RUNGS);
    if (s.getMode() == SearcherConfig.Mode.UNRECOGNIZED) {
      check.field(
          "mode", EnumNames.unrecognized(s.getModeValue(), SearcherConfig.Mode.getDescriptor()));
    }
  }

  @Override
  public void validate(SearcherCheck check) {
    check.requireMaxTrials();
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    AshaPlan plan = AshaPlan.of(setup.searcher());
    return setup.withConcurrencyOr(
        new AdaptiveAshaSearch(plan, TpeSpec.sampler(setup.space(), setup.options())),
        plan.totalConcurrency());
  }
}
