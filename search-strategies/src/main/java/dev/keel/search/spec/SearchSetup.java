package dev.keel.search.spec;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.SearcherOptions;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.space.HyperparameterSpace;

/**
 * What a spec builds its method from: a validated config, the options in use and the config's
 * search space.
 */
public record SearchSetup(
    ExperimentConfig config, SearcherOptions options, HyperparameterSpace space) {
  /** {@code max_concurrent_trials} when the config leaves it unset (Determined's default). */
  public static final int DEFAULT_MAX_CONCURRENT_TRIALS = 16;

  /**
   * No limit: {@code max_concurrent_trials: 0} of a method that starts every trial it can, as
   * Determined's grid and random do.
   */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  public SearcherConfig searcher() {
    return config.getSearcher();
  }

  /** {@code max_length} in the experiment's unit. */
  public long maxLength() {
    return TrainingLength.of(searcher().getMaxLength()).units();
  }

  /**
   * {@code max_concurrent_trials}, or 0 when the config leaves it to the method (unset, or 0
   * written out).
   */
  public int configuredConcurrency() {
    SearcherConfig s = searcher();
    return s.hasMaxConcurrentTrials() && s.getMaxConcurrentTrials() > 0
        ? s.getMaxConcurrentTrials()
        : 0;
  }

  /**
   * {@code max_concurrent_trials: 0} written out: Determined's meaning for the method, not the
   * unset default.
   */
  public boolean zeroConcurrency() {
    return zeroConcurrency(searcher());
  }

  public static boolean zeroConcurrency(SearcherConfig s) {
    return s.hasMaxConcurrentTrials() && s.getMaxConcurrentTrials() == 0;
  }

  /** The method with the configured concurrency, else {@code fallback}. */
  public BuiltMethod withConcurrencyOr(SearchMethod method, int fallback) {
    int configured = configuredConcurrency();
    return new BuiltMethod(method, configured > 0 ? configured : fallback);
  }

  /**
   * The method with the configured concurrency; {@code 0} written out: no limit (Determined's grid
   * and random dispatch every trial they can); unset: {@value #DEFAULT_MAX_CONCURRENT_TRIALS}.
   */
  public BuiltMethod withDefaultConcurrency(SearchMethod method) {
    return withConcurrencyOr(method, zeroConcurrency() ? UNLIMITED : DEFAULT_MAX_CONCURRENT_TRIALS);
  }
}
