package dev.keel.search;

import dev.keel.api.v1.SearcherConfig;

/**
 * Searcher knobs that {@code SearcherConfig} does not carry (yet). Defaults apply when a searcher
 * is built from the config alone; a snapshot records the options in use.
 *
 * @param ashaSampler how {@code adaptive_asha} and {@code hyperband} pick new trials: {@code
 *     random} or {@code tpe}
 * @param pbtNumRounds PBT rounds; 0 derives them from {@code max_trials}, {@code population_size}
 *     and {@code truncate_fraction}
 * @param pbtPerturbFactor PBT explore: multiply a numeric hyperparameter by {@code 1 - f} or {@code
 *     1 + f}
 * @param pbtResampleProbability PBT explore: chance to resample a hyperparameter from its prior
 *     instead
 * @param tpeStartupTrials TPE samples at random until it has this many observations at one length
 * @param tpeGamma TPE: fraction of observations that form the "good" density
 * @param tpeCandidates TPE: candidates drawn from the good density per new trial
 */
public record SearcherOptions(
    String ashaSampler,
    int pbtNumRounds,
    double pbtPerturbFactor,
    double pbtResampleProbability,
    int tpeStartupTrials,
    double tpeGamma,
    int tpeCandidates) {

  public static final String RANDOM_SAMPLER = "random";
  public static final String TPE_SAMPLER = "tpe";

  public SearcherOptions {
    if (!RANDOM_SAMPLER.equals(ashaSampler) && !TPE_SAMPLER.equals(ashaSampler)) {
      throw new IllegalArgumentException("ashaSampler must be random or tpe, got " + ashaSampler);
    }
    if (pbtNumRounds < 0) {
      throw new IllegalArgumentException("pbtNumRounds must be >= 0, got " + pbtNumRounds);
    }
    if (!(pbtPerturbFactor > 0 && pbtPerturbFactor < 1)) {
      throw new IllegalArgumentException(
          "pbtPerturbFactor must be in (0, 1), got " + pbtPerturbFactor);
    }
    if (!(pbtResampleProbability >= 0 && pbtResampleProbability <= 1)) {
      throw new IllegalArgumentException(
          "pbtResampleProbability must be in [0, 1], got " + pbtResampleProbability);
    }
    if (tpeStartupTrials < 2) {
      throw new IllegalArgumentException("tpeStartupTrials must be >= 2, got " + tpeStartupTrials);
    }
    if (!(tpeGamma > 0 && tpeGamma < 1)) {
      throw new IllegalArgumentException("tpeGamma must be in (0, 1), got " + tpeGamma);
    }
    if (tpeCandidates < 1) {
      throw new IllegalArgumentException("tpeCandidates must be >= 1, got " + tpeCandidates);
    }
  }

  public static SearcherOptions defaults() {
    return new SearcherOptions(RANDOM_SAMPLER, 0, 0.2, 0.2, 10, 0.25, 24);
  }

  /** The knobs the config sets, defaults for the rest. */
  public static SearcherOptions of(SearcherConfig s) {
    SearcherOptions d = defaults();
    return new SearcherOptions(
        s.getSampler().isEmpty() ? d.ashaSampler() : s.getSampler(),
        s.hasNumRounds() ? s.getNumRounds() : d.pbtNumRounds(),
        s.hasPerturbFactor() ? s.getPerturbFactor() : d.pbtPerturbFactor(),
        s.hasResampleProbability() ? s.getResampleProbability() : d.pbtResampleProbability(),
        s.hasTpeStartupTrials() ? s.getTpeStartupTrials() : d.tpeStartupTrials(),
        s.hasTpeGamma() ? s.getTpeGamma() : d.tpeGamma(),
        s.hasTpeCandidates() ? s.getTpeCandidates() : d.tpeCandidates());
  }

  public SearcherOptions withAshaSampler(String sampler) {
    return new SearcherOptions(
        sampler,
        pbtNumRounds,
        pbtPerturbFactor,
        pbtResampleProbability,
        tpeStartupTrials,
        tpeGamma,
        tpeCandidates);
  }

  public SearcherOptions withPbtNumRounds(int rounds) {
    return new SearcherOptions(
        ashaSampler,
        rounds,
        pbtPerturbFactor,
        pbtResampleProbability,
        tpeStartupTrials,
        tpeGamma,
        tpeCandidates);
  }

  public SearcherOptions withPbtExplore(double perturbFactor, double resampleProbability) {
    return new SearcherOptions(
        ashaSampler,
        pbtNumRounds,
        perturbFactor,
        resampleProbability,
        tpeStartupTrials,
        tpeGamma,
        tpeCandidates);
  }

  public SearcherOptions withTpe(int startupTrials, double gamma, int candidates) {
    return new SearcherOptions(
        ashaSampler,
        pbtNumRounds,
        pbtPerturbFactor,
        pbtResampleProbability,
        startupTrials,
        gamma,
        candidates);
  }
}
