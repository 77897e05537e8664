package dev.keel.search.spec;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.SearcherOptions;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.space.HyperparameterSpace;

/** What a spec builds its method from: a validated config, the options in use and the config's search space. */
public record SearchSetup(ExperimentConfig config, SearcherOptions options, HyperparameterSpace space) {
  /** {@code max_concurrent_trials} when the config leaves it unset or 0 (Determined's default). */
  public static final int DEFAULT_MAX_CONCURRENT_TRIALS = 16;

  public SearcherConfig searcher() {
    return config.getSearcher();
  }

  /** {@code max_length} in the experiment's unit. */
  public long maxLength() {
    return TrainingLength.of(searcher().getMaxLength()).units();
  }

  /** {@code max_concurrent_trials}, or 0 when the config leaves it to the method. */
  public int configuredConcurrency() {
    SearcherConfig s = searcher();
    return s.hasMaxConcurrentTrials() && s.getMaxConcurrentTrials() > 0 ? s.getMaxConcurrentTrials() : 0;
  }

  /** The method with the configured concurrency, else {@code fallback}. */
  public BuiltMethod withConcurrencyOr(SearchMethod method, int fallback) {
    int configured = configuredConcurrency();
    return new BuiltMethod(method, configured > 0 ? configured : fallback);
  }

  /** The method with the configured concurrency, else {@value #DEFAULT_MAX_CONCURRENT_TRIALS}. */
  public BuiltMethod withDefaultConcurrency(SearchMethod method) {
    return withConcurrencyOr(method, DEFAULT_MAX_CONCURRENT_TRIALS);
  }
}
