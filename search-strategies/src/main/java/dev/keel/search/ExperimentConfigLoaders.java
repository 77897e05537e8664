package dev.keel.search;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ProtoConfigLoader;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Loaders of user-written configs (YAML or JSON) that validate through {@link ExperimentConfigs}.
 * Apart from it because a loader can read files: workflow code, which must not reach I/O, uses
 * {@link ExperimentConfigs} alone.
 */
public final class ExperimentConfigLoaders {
  private ExperimentConfigLoaders() {}

  /**
   * Loads YAML or JSON (protobuf's JSON mapping) and validates it, with every problem's field path.
   */
  public static ProtoConfigLoader<ExperimentConfig> experimentLoader() {
    return new ProtoConfigLoader<>(
        ExperimentConfigs.EXPERIMENT, ExperimentConfig::newBuilder, ExperimentConfigs::validate);
  }

  public static ProtoConfigLoader<PipelineRequest> pipelineLoader() {
    return new ProtoConfigLoader<>(
        ExperimentConfigs.PIPELINE,
        PipelineRequest::newBuilder,
        ExperimentConfigs::validatePipeline);
  }

  /**
   * Reads an experiment config through the validating loader it is handed, e.g. {@code load(loader
   * -> loader.fromFile(path))} (the reading is the caller's: this module does no I/O), and returns
   * it as validated, so nothing downstream checks it again.
   *
   * @throws ConfigValidationException listing every problem with its field path (and the file, for
   *     a file)
   * @throws IllegalArgumentException if {@code read} returns a config the loader did not validate
   */
  // identity on purpose: the very object the loader validated, not an equal copy made afterwards
  @SuppressWarnings("ReferenceEquality")
  public static ValidatedConfig load(
      Function<ProtoConfigLoader<ExperimentConfig>, ExperimentConfig> read) {
    List<ExperimentConfig> passed = new ArrayList<>();
    ProtoConfigLoader<ExperimentConfig> loader =
        new ProtoConfigLoader<>(
            ExperimentConfigs.EXPERIMENT,
            ExperimentConfig::newBuilder,
            c -> {
              List<ConfigProblem> problems = ExperimentConfigs.validate(c);
              if (problems.isEmpty()) {
                passed.add(c);
              }
              return problems;
            });
    ExperimentConfig config = read.apply(loader);
    if (passed.stream().noneMatch(c -> c == config)) {
      throw new IllegalArgumentException(
          "load() takes the config its loader read, not another one");
    }
    return new ValidatedConfig(config);
  }

  /** An experiment config as sent to the REST API: JSON if it starts with '{', else YAML. */
  public static ValidatedConfig load(String yamlOrJson) {
    return load(
        loader ->
            yamlOrJson.stripLeading().startsWith("{")
                ? loader.fromJson(yamlOrJson)
                : loader.fromYaml(yamlOrJson));
  }
}
