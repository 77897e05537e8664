package dev.keel.search;

import dev.keel.api.v1.ExperimentConfig;

/**
 * An experiment config that passed {@link ExperimentConfigs}' rules, so a searcher is built from it
 * without checking again. Only {@link ExperimentConfigs} and {@link ExperimentConfigLoaders} make
 * one, and only after validating.
 */
public final class ValidatedConfig {
  private final ExperimentConfig config;

  ValidatedConfig(ExperimentConfig config) {
    this.config = config;
  }

  public ExperimentConfig config() {
    return config;
  }
}
