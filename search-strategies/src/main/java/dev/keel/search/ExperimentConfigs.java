package dev.keel.search;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.ExperimentConfigValidator;
import dev.keel.api.config.PipelineRequestValidator;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import java.util.function.Consumer;

/**
 * The one place Keel validates its configs: the experiment's and pipeline's own rules (api)
 * together with the searcher's ({@link SearchMethods}). The CLI, the REST API and the workflows'
 * input checks all come here (the CLI and REST through the file-reading loaders of {@link
 * ExperimentConfigLoaders}). Validating again is never needed: {@link #validated} returns a {@link
 * ValidatedConfig} that builds its searcher as is, and a searcher restored from a snapshot is not
 * checked at all (its config was valid when it started, and newer rules must not strand a running
 * experiment).
 */
public final class ExperimentConfigs {
  static final String EXPERIMENT = "experiment config";

  /**
   * How problems of a pipeline request are introduced, by the loaders and by the workflow alike.
   */
  public static final String PIPELINE = "pipeline request";

  /**
   * Told of every validation (a pipeline's by its experiment), so tests can pin how often one
   * happens.
   */
  static volatile Consumer<ExperimentConfig> onValidate = c -> {};

  private ExperimentConfigs() {}

  /** Every problem of a standalone experiment config (empty if none). */
  public static List<ConfigProblem> validate(ExperimentConfig config) {
    onValidate.accept(config);
    return ExperimentConfigValidator.validate(config, SearcherSection.RULES);
  }

  /** Every problem of a pipeline request; its experiment may use any searcher. */
  public static List<ConfigProblem> validatePipeline(PipelineRequest request) {
    onValidate.accept(request.getExperiment());
    return PipelineRequestValidator.validate(request, SearcherSection.RULES);
  }

  /**
   * Only what a searcher reads (hyperparameters, searcher): for searchers built outside an
   * experiment, such as simulations, benchmarks and tests, which have no data table or model.
   */
  public static List<ConfigProblem> validateSearch(ExperimentConfig config) {
    onValidate.accept(config);
    return ExperimentConfigValidator.validateSearch(config, SearcherSection.RULES);
  }

  /**
   * The config, validated once for good.
   *
   * @throws ConfigValidationException listing every problem with its field path
   */
  public static ValidatedConfig validated(ExperimentConfig config) {
    return token(config, validate(config));
  }

  static ValidatedConfig validatedSearch(ExperimentConfig config) {
    return token(config, validateSearch(config));
  }

  private static ValidatedConfig token(ExperimentConfig config, List<ConfigProblem> problems) {
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(EXPERIMENT, problems);
    }
    return new ValidatedConfig(config);
  }
}
