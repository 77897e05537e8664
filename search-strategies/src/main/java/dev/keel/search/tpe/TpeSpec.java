package dev.keel.search.tpe;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.SearcherOptions;
import dev.keel.search.method.IndependentTrialsSearch;
import dev.keel.search.method.RandomSpec;
import dev.keel.search.space.HyperparameterSampler;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.space.RandomSampler;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;
import java.util.Set;

/**
 * {@code tpe}: like random, but each trial is picked by a {@link TpeSampler} fitted to the finished
 * ones. Owns the sampler settings too ({@code sampler}, {@code tpe_*}), since ASHA and Hyperband
 * draw their trials through {@link #sampler} and the same knobs tune it there.
 */
public final class TpeSpec implements SearchMethodSpec {
  private static final Set<String> SAMPLERS =
      Set.of(SearcherOptions.RANDOM_SAMPLER, SearcherOptions.TPE_SAMPLER);

  @Override
  public String name() {
    return "tpe";
  }

  @Override
  public void checkSettings(SearcherCheck check) {
    SearcherConfig s = check.searcher();
    if (!s.getSampler().isEmpty() && !SAMPLERS.contains(s.getSampler())) {
      check.field("sampler", "unknown sampler '" + s.getSampler() + "' (expected random|tpe)");
    }
    check.atLeast("tpe_startup_trials", s.hasTpeStartupTrials(), s.getTpeStartupTrials(), 2);
    if (s.hasTpeGamma() && !(s.getTpeGamma() > 0 && s.getTpeGamma() < 1)) {
      check.field("tpe_gamma", "must be in (0, 1), got " + s.getTpeGamma());
    }
    check.atLeast("tpe_candidates", s.hasTpeCandidates(), s.getTpeCandidates(), 1);
    check.atMost("tpe_candidates", s.getTpeCandidates(), ConfigLimits.MAX_TPE_CANDIDATES);
  }

  @Override
  public void validate(SearcherCheck check) {
    check.requireMaxTrials();
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    return setup.withDefaultConcurrency(
        IndependentTrialsSearch.ofSampler(
            setup.searcher().getMaxTrials(),
            tpe(setup.space(), setup.options()),
            setup.maxLength()));
  }

  /**
   * Random search's plan: trials drawn by TPE or from the prior train alike (see {@link
   * SearchMethodSpec#buildForPreview}).
   */
  @Override
  public BuiltMethod buildForPreview(SearchSetup setup) {
    return new RandomSpec().build(setup);
  }

  /**
   * How a bracketed method (ASHA, Hyperband) draws new trials: from the prior, or BOHB-style
   * through TPE.
   */
  public static HyperparameterSampler sampler(HyperparameterSpace space, SearcherOptions options) {
    return SearcherOptions.TPE_SAMPLER.equals(options.ashaSampler())
        ? tpe(space, options)
        : new RandomSampler(space);
  }

  private static TpeSampler tpe(HyperparameterSpace space, SearcherOptions options) {
    return new TpeSampler(
        space, options.tpeStartupTrials(), options.tpeGamma(), options.tpeCandidates());
  }
}
