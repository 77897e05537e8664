package dev.keel.api.config;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;

/** The loaders of Keel's user-facing configs. */
public final class ConfigLoaders {
  private ConfigLoaders() {}

  public static ProtoConfigLoader<ExperimentConfig> experiment() {
    return new ProtoConfigLoader<>("experiment config", ExperimentConfig::newBuilder, ExperimentConfigValidator::validate);
  }

  public static ProtoConfigLoader<PipelineRequest> pipeline() {
    return new ProtoConfigLoader<>("pipeline request", PipelineRequest::newBuilder, PipelineRequestValidator::validate);
  }
}
