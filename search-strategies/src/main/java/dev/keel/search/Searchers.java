package dev.keel.search;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.core.SearchEngine;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.spec.BuiltMethod;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearchSetup;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

/**
 * Builds, restores and previews searchers. A {@link ValidatedConfig} builds without further checks;
 * a bare {@link ExperimentConfig} is checked first for what a searcher reads ({@link
 * ExperimentConfigs#validateSearch}).
 */
public final class Searchers {

  private Searchers() {}

  /** The seed is {@code searcher.seed}, or {@code reproducibility.seed} when that is 0. */
  public static Searcher create(ValidatedConfig config) {
    return create(config, SearcherOptions.of(config.config().getSearcher()));
  }

  public static Searcher create(ValidatedConfig config, SearcherOptions options) {
    return build(config.config(), options);
  }

  /**
   * A searcher for a config not validated yet.
   *
   * @throws ConfigValidationException listing every problem (with its field path) if a searcher
   *     cannot run it
   */
  public static Searcher create(ExperimentConfig config) {
    return create(ExperimentConfigs.validatedSearch(config));
  }

  public static Searcher create(ExperimentConfig config, SearcherOptions options) {
    return create(ExperimentConfigs.validatedSearch(config), options);
  }

  /**
   * Rebuilds a searcher from {@link Searcher#snapshot()}; it answers exactly as the original would.
   * The config is not validated again: it was when the search started, and a rule added since must
   * not stop a running one.
   */
  public static Searcher restore(String snapshot) {
    JsonNode doc = StateCodec.read(snapshot);
    SearchEngine engine =
        build(SearchEngine.snapshotConfig(doc), SearchEngine.snapshotOptions(doc));
    engine.restore(doc);
    return engine;
  }

  /**
   * What the config will run (trials, lengths, brackets), like {@code det preview-search}. Within
   * the limits of {@link dev.keel.api.config.ConfigLimits} a preview takes about a second at most
   * (100,000 ASHA trials); the simulation runs in O(n log n) of the trials.
   */
  public static SearchPreview preview(ValidatedConfig config) {
    return preview(config, () -> false);
  }

  /**
   * A preview that stops as soon as {@code stop} says so (it is asked every few hundred steps of
   * the simulation), for callers with a deadline.
   *
   * @throws dev.keel.search.sim.SimulationStoppedException if {@code stop} said so before the
   *     preview was done
   */
  public static SearchPreview preview(ValidatedConfig config, BooleanSupplier stop) {
    ExperimentConfig c = config.config();
    return SearchPreview.of(planner(c, SearcherOptions.of(c.getSearcher())), c, stop);
  }

  public static SearchPreview preview(ExperimentConfig config) {
    return preview(ExperimentConfigs.validatedSearch(config));
  }

  public static SearchPreview preview(ExperimentConfig config, SearcherOptions options) {
    return SearchPreview.of(
        planner(ExperimentConfigs.validatedSearch(config).config(), options), config, () -> false);
  }

  /** The seed a config's searcher uses. */
  public static long seed(ExperimentConfig config) {
    long s = config.getSearcher().getSeed();
    return s != 0 ? s : config.getReproducibility().getSeed();
  }

  private static SearchEngine build(ExperimentConfig config, SearcherOptions options) {
    return build(config, options, SearchMethodSpec::build);
  }

  /**
   * The searcher a preview runs: the config's, except that new trials are drawn from the prior,
   * since a preview's plan never depends on which points are drawn (see {@link
   * SearchMethodSpec#buildForPreview}) and TPE's fit costs about half a millisecond per trial.
   */
  private static SearchEngine planner(ExperimentConfig config, SearcherOptions options) {
    return build(
        config,
        options.withAshaSampler(SearcherOptions.RANDOM_SAMPLER),
        SearchMethodSpec::buildForPreview);
  }

  private static SearchEngine build(
      ExperimentConfig config,
      SearcherOptions options,
      BiFunction<SearchMethodSpec, SearchSetup, BuiltMethod> how) {
    SearchMethodSpec spec =
        SearchMethods.byName(config.getSearcher().getName())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "unknown searcher '" + config.getSearcher().getName() + "'"));
    BuiltMethod built =
        how.apply(
            spec,
            new SearchSetup(
                config, options, HyperparameterSpace.of(config.getHyperparametersMap())));
    return new SearchEngine(
        config, options, built.method(), seed(config), built.maxConcurrentTrials());
  }
}
