package dev.keel.search;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.ExperimentConfigValidator;
import dev.keel.api.config.PipelineRequestValidator;
import dev.keel.api.config.ProtoConfigLoader;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.search.method.SingleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one place Keel validates its configs: the experiment's and pipeline's own rules (api) together with the
 * searcher's ({@link SearchMethods}). The CLI, the REST API and the workflows' input checks all come here, and so
 * do the loaders handed out below. Validating again is never needed: {@link #validated} returns a
 * {@link ValidatedConfig} that builds its searcher as is, and a searcher restored from a snapshot is not checked
 * at all (its config was valid when it started, and newer rules must not strand a running experiment).
 */
public final class ExperimentConfigs {
  private static final String EXPERIMENT = "experiment config";
  private static final String PIPELINE = "pipeline request";

  /** Told of every validation (a pipeline's by its experiment), so tests can pin how often one happens. */
  static volatile Consumer<ExperimentConfig> onValidate = c -> { };

  private ExperimentConfigs() {}

  /** Every problem of a standalone experiment config (empty if none). */
  public static List<ConfigProblem> validate(ExperimentConfig config) {
    onValidate.accept(config);
    return ExperimentConfigValidator.validate(config, SearcherSection.RULES);
  }

  /**
   * Every problem of a pipeline request. A pipeline trains exactly one trial, so its experiment must use the
   * single searcher; an unknown name is already a problem of its own and gets no second one.
   */
  public static List<ConfigProblem> validatePipeline(PipelineRequest request) {
    onValidate.accept(request.getExperiment());
    List<ConfigProblem> problems = new ArrayList<>(PipelineRequestValidator.validate(request, SearcherSection.RULES));
    String searcher = request.getExperiment().getSearcher().getName();
    if (SearchMethods.byName(searcher).isPresent() && !SingleSpec.NAME.equals(searcher)) {
      problems.add(new ConfigProblem("experiment.searcher.name",
          "a pipeline trains one trial: use the single searcher (got " + searcher + "); run searches as experiments"));
    }
    return problems;
  }

  /**
   * Only what a searcher reads (hyperparameters, searcher): for searchers built outside an experiment, such as
   * simulations, benchmarks and tests, which have no data table or model.
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

  /** Loads YAML or JSON (protobuf's JSON mapping) and validates it, with every problem's field path. */
  public static ProtoConfigLoader<ExperimentConfig> experimentLoader() {
    return new ProtoConfigLoader<>(EXPERIMENT, ExperimentConfig::newBuilder, ExperimentConfigs::validate);
  }

  public static ProtoConfigLoader<PipelineRequest> pipelineLoader() {
    return new ProtoConfigLoader<>(PIPELINE, PipelineRequest::newBuilder, ExperimentConfigs::validatePipeline);
  }

  /**
   * Reads an experiment config through the validating loader it is handed, e.g.
   * {@code load(loader -> loader.fromFile(path))} (the reading is the caller's: this module does no I/O), and
   * returns it as validated, so nothing downstream checks it again.
   *
   * @throws ConfigValidationException listing every problem with its field path (and the file, for a file)
   * @throws IllegalArgumentException if {@code read} returns a config the loader did not validate
   */
  public static ValidatedConfig load(Function<ProtoConfigLoader<ExperimentConfig>, ExperimentConfig> read) {
    List<ExperimentConfig> passed = new ArrayList<>();
    ProtoConfigLoader<ExperimentConfig> loader = new ProtoConfigLoader<>(EXPERIMENT, ExperimentConfig::newBuilder, c -> {
      List<ConfigProblem> problems = validate(c);
      if (problems.isEmpty()) {
        passed.add(c);
      }
      return problems;
    });
    ExperimentConfig config = read.apply(loader);
    if (passed.stream().noneMatch(c -> c == config)) {
      throw new IllegalArgumentException("load() takes the config its loader read, not another one");
    }
    return new ValidatedConfig(config);
  }

  /** An experiment config as sent to the REST API: JSON if it starts with '{', else YAML. */
  public static ValidatedConfig load(String yamlOrJson) {
    return load(loader -> yamlOrJson.stripLeading().startsWith("{") ? loader.fromJson(yamlOrJson) : loader.fromYaml(yamlOrJson));
  }

  private static ValidatedConfig token(ExperimentConfig config, List<ConfigProblem> problems) {
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(EXPERIMENT, problems);
    }
    return new ValidatedConfig(config);
  }
}
