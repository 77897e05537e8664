package dev.keel.search;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.asha.AdaptiveAshaSearch;
import dev.keel.search.asha.AshaPlan;
import dev.keel.search.core.SearchEngine;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.core.StateCodec;
import dev.keel.search.hyperband.HyperbandPlan;
import dev.keel.search.hyperband.HyperbandSearch;
import dev.keel.search.method.IndependentTrialsSearch;
import dev.keel.search.pbt.PbtPlan;
import dev.keel.search.pbt.PbtSearch;
import dev.keel.search.space.HyperparameterSampler;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.space.RandomSampler;
import dev.keel.search.tpe.TpeSampler;
import java.util.List;

/** Builds, restores, validates and previews searchers from an {@link ExperimentConfig}. */
public final class Searchers {
  /** {@code max_concurrent_trials} when the config leaves it unset or 0 (Determined's default). */
  public static final int DEFAULT_MAX_CONCURRENT_TRIALS = 16;
  private static final String SOURCE = "experiment config";

  private Searchers() {}

  public static Searcher create(ExperimentConfig config) {
    return create(config, SearcherOptions.of(config.getSearcher()));
  }

  /**
   * A searcher for this config. The seed is {@code searcher.seed}, or {@code reproducibility.seed} when that is 0.
   *
   * @throws ConfigValidationException listing every problem (with its field path) if the config is unusable
   */
  public static Searcher create(ExperimentConfig config, SearcherOptions options) {
    List<ConfigProblem> problems = validate(config);
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(SOURCE, problems);
    }
    return engine(config, options);
  }

  /** Rebuilds a searcher from {@link Searcher#snapshot()}; it answers exactly as the original would. */
  public static Searcher restore(String snapshot) {
    JsonNode doc = StateCodec.read(snapshot);
    ExperimentConfig config = SearchEngine.snapshotConfig(doc);
    SearchEngine engine = (SearchEngine) create(config, SearchEngine.snapshotOptions(doc));
    engine.restore(doc);
    return engine;
  }

  /** Every problem that stops a searcher being built from this config (empty if none). */
  public static List<ConfigProblem> validate(ExperimentConfig config) {
    return SearchConfigValidator.validate(config);
  }

  /** What the config will run (trials, lengths, brackets), like {@code det preview-search}. */
  public static SearchPreview preview(ExperimentConfig config) {
    return SearchPreview.of(config, SearcherOptions.of(config.getSearcher()));
  }

  public static SearchPreview preview(ExperimentConfig config, SearcherOptions options) {
    return SearchPreview.of(config, options);
  }

  /** The seed a config's searcher uses. */
  public static long seed(ExperimentConfig config) {
    long s = config.getSearcher().getSeed();
    return s != 0 ? s : config.getReproducibility().getSeed();
  }

  private static SearchEngine engine(ExperimentConfig config, SearcherOptions options) {
    SearcherConfig s = config.getSearcher();
    HyperparameterSpace space = HyperparameterSpace.of(config.getHyperparametersMap());
    long maxLength = TrainingLength.of(s.getMaxLength()).units();
    int configured = s.hasMaxConcurrentTrials() && s.getMaxConcurrentTrials() > 0 ? s.getMaxConcurrentTrials() : 0;
    int concurrency = configured > 0 ? configured : DEFAULT_MAX_CONCURRENT_TRIALS;
    SearchMethod method;
    switch (s.getName()) {
      case "single" -> {
        method = IndependentTrialsSearch.ofSampler(1, new RandomSampler(space), maxLength);
        concurrency = 1;
      }
      case "grid" -> {
        List<java.util.SortedMap<String, com.google.protobuf.Value>> points = space.grid();
        if (s.hasMaxTrials() && s.getMaxTrials() < points.size()) {
          points = points.subList(0, s.getMaxTrials());
        }
        method = IndependentTrialsSearch.ofPoints(points, maxLength);
      }
      case "random" -> method = IndependentTrialsSearch.ofSampler(s.getMaxTrials(), new RandomSampler(space), maxLength);
      case "tpe" -> method = IndependentTrialsSearch.ofSampler(s.getMaxTrials(), tpe(space, options), maxLength);
      case "adaptive_asha" -> {
        AshaPlan plan = AshaPlan.of(s);
        method = new AdaptiveAshaSearch(plan, sampler(space, options));
        concurrency = configured > 0 ? configured : plan.totalConcurrency();
      }
      case "hyperband" -> method = new HyperbandSearch(HyperbandPlan.of(s), sampler(space, options));
      case "pbt" -> {
        PbtPlan plan = PbtPlan.of(s, options);
        method = new PbtSearch(plan, space);
        concurrency = configured > 0 ? configured : plan.population();
      }
      default -> throw new IllegalArgumentException("unknown searcher '" + s.getName() + "'");
    }
    return new SearchEngine(config, options, method, seed(config), concurrency);
  }

  private static HyperparameterSampler sampler(HyperparameterSpace space, SearcherOptions options) {
    return SearcherOptions.TPE_SAMPLER.equals(options.ashaSampler()) ? tpe(space, options) : new RandomSampler(space);
  }

  private static HyperparameterSampler tpe(HyperparameterSpace space, SearcherOptions options) {
    return new TpeSampler(space, options.tpeStartupTrials(), options.tpeGamma(), options.tpeCandidates());
  }
}
