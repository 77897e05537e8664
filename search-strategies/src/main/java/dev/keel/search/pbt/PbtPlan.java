package dev.keel.search.pbt;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.SearcherOptions;

/**
 * PBT's numbers: population {@code P} ({@code population_size}, default {@code min(10,
 * max_trials)}), replaced per round {@code max(1, floor(P * truncate_fraction))} (default fraction
 * 0.2), rounds from the options or {@code 1 + (max_trials - P) / replaced} (so at most {@code
 * max_trials} trials), at most {@code max_length} rounds; never more than {@code max_trials}
 * trials. Round k trains every member to {@code max_length * (k+1) / rounds}: a lineage ends at
 * {@code max_length}.
 */
public record PbtPlan(
    int population,
    int replacedPerRound,
    int rounds,
    int maxTrials,
    long maxLength,
    double perturbFactor,
    double resampleProbability) {
  public static final int DEFAULT_POPULATION = 10;
  public static final double DEFAULT_TRUNCATE_FRACTION = 0.2;

  public static PbtPlan of(SearcherConfig s, SearcherOptions options) {
    int maxTrials = s.getMaxTrials();
    int population =
        s.hasPopulationSize() ? s.getPopulationSize() : Math.min(DEFAULT_POPULATION, maxTrials);
    double truncate = s.hasTruncateFraction() ? s.getTruncateFraction() : DEFAULT_TRUNCATE_FRACTION;
    int replaced = population < 2 ? 0 : Math.max(1, (int) Math.floor(population * truncate));
    long maxLength = TrainingLength.of(s.getMaxLength()).units();
    int rounds;
    if (replaced == 0) {
      rounds = 1;
    } else if (options.pbtNumRounds() > 0) {
      rounds = options.pbtNumRounds();
    } else {
      rounds = 1 + Math.max(0, maxTrials - population) / replaced;
    }
    rounds = (int) Math.max(1, Math.min(rounds, maxLength));
    int budget = Math.min(maxTrials, population + (rounds - 1) * replaced);
    return new PbtPlan(
        population,
        replaced,
        rounds,
        budget,
        maxLength,
        options.pbtPerturbFactor(),
        options.pbtResampleProbability());
  }

  /** The total length every member reaches in round {@code k} (0-based). */
  public long roundLength(int k) {
    return maxLength * (k + 1) / rounds;
  }
}
