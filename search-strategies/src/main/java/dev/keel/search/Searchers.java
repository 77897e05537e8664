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

/**
 * Builds, restores and previews searchers. A {@link ValidatedConfig} builds without further checks; a bare
 * {@link ExperimentConfig} is checked first for what a searcher reads ({@link ExperimentConfigs#validateSearch}).
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
   * @throws ConfigValidationException listing every problem (with its field path) if a searcher cannot run it
   */
  public static Searcher create(ExperimentConfig config) {
    return create(ExperimentConfigs.validatedSearch(config));
  }

  public static Searcher create(ExperimentConfig config, SearcherOptions options) {
    return create(ExperimentConfigs.validatedSearch(config), options);
  }

  /**
   * Rebuilds a searcher from {@link Searcher#snapshot()}; it answers exactly as the original would. The config is
   * not validated again: it was when the search started, and a rule added since must not stop a running one.
   */
  public static Searcher restore(String snapshot) {
    JsonNode doc = StateCodec.read(snapshot);
    SearchEngine engine = build(SearchEngine.snapshotConfig(doc), SearchEngine.snapshotOptions(doc));
    engine.restore(doc);
    return engine;
  }

  /** What the config will run (trials, lengths, brackets), like {@code det preview-search}. */
  public static SearchPreview preview(ValidatedConfig config) {
    return SearchPreview.of(create(config), config.config());
  }

  public static SearchPreview preview(ExperimentConfig config) {
    return SearchPreview.of(create(config), config);
  }

  public static SearchPreview preview(ExperimentConfig config, SearcherOptions options) {
    return SearchPreview.of(create(config, options), config);
  }

  /** The seed a config's searcher uses. */
  public static long seed(ExperimentConfig config) {
    long s = config.getSearcher().getSeed();
    return s != 0 ? s : config.getReproducibility().getSeed();
  }

  private static SearchEngine build(ExperimentConfig config, SearcherOptions options) {
    SearchMethodSpec spec = SearchMethods.byName(config.getSearcher().getName())
        .orElseThrow(() -> new IllegalArgumentException("unknown searcher '" + config.getSearcher().getName() + "'"));
    BuiltMethod built = spec.build(new SearchSetup(config, options, HyperparameterSpace.of(config.getHyperparametersMap())));
    return new SearchEngine(config, options, built.method(), seed(config), built.maxConcurrentTrials());
  }
}
