package dev.keel.search.pbt;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.SearcherOptions;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import dev.keel.search.spec.SearcherCheck;

/** {@code pbt}: owns the population, truncation, rounds and explore settings. */
public final class PbtSpec implements SearchMethodSpec {

  @Override
  public String name() {
    return "pbt";
  }

  @Override
  public void checkSettings(SearcherCheck check) {
    SearcherConfig s = check.searcher();
    check.atLeast("population_size", s.hasPopulationSize(), s.getPopulationSize(), 2);
    if (s.hasTruncateFraction()
        && !(s.getTruncateFraction() > 0 && s.getTruncateFraction() <= 0.5)) {
      check.field("truncate_fraction", "must be in (0, 0.5], got " + s.getTruncateFraction());
    }
    check.atLeast("num_rounds", s.hasNumRounds(), s.getNumRounds(), 1);
    if (s.hasPerturbFactor() && !(s.getPerturbFactor() > 0 && s.getPerturbFactor() < 1)) {
      check.field("perturb_factor", "must be in (0, 1), got " + s.getPerturbFactor());
    }
    if (s.hasResampleProbability()
        && !(s.getResampleProbability() >= 0 && s.getResampleProbability() <= 1)) {
      check.field("resample_probability", "must be in [0, 1], got " + s.getResampleProbability());
    }
  }

  @Override
  public void validate(SearcherCheck check) {
    check.requireMaxTrials();
    SearcherConfig s = check.searcher();
    // only when both are usable: a missing or bad max_trials is reported on its own
    if (s.hasMaxTrials()
        && s.getMaxTrials() > 0
        && s.hasPopulationSize()
        && s.getPopulationSize() > s.getMaxTrials()) {
      check.field(
          "population_size",
          "must be <= max_trials (" + s.getMaxTrials() + "), got " + s.getPopulationSize());
    }
    trainings(check);
  }

  /** Every member trains once per round: population times rounds must stay within Keel's limit. */
  private static void trainings(SearcherCheck check) {
    SearcherConfig s = check.searcher();
    PbtPlan plan;
    try {
      plan = PbtPlan.of(s, SearcherOptions.of(s));
    } catch (IllegalArgumentException e) {
      return; // a field the plan needs is missing or out of range: its own rule says so
    }
    long trainings = (long) plan.population() * plan.rounds();
    if (trainings > ConfigLimits.MAX_PBT_TRAININGS) {
      String field =
          s.hasNumRounds()
              ? "num_rounds"
              : s.hasPopulationSize() ? "population_size" : "max_trials";
      check.field(
          field,
          "PBT would train "
              + trainings
              + " times (population "
              + plan.population()
              + " x "
              + plan.rounds()
              + " rounds); at most "
              + ConfigLimits.MAX_PBT_TRAININGS
              + " (Keel's limit): lower population_size or num_rounds, or raise truncate_fraction");
    }
  }

  @Override
  public BuiltMethod build(SearchSetup setup) {
    PbtPlan plan = PbtPlan.of(setup.searcher(), setup.options());
    return setup.withConcurrencyOr(new PbtSearch(plan, setup.space()), plan.population());
  }
}
