/**
 * Loading Keel's YAML/JSON configs into protobuf messages and validating them, reporting every
 * problem with its field path. The rules here are the experiment's and the pipeline's own; a
 * searcher's rules are {@link dev.keel.api.config.SearcherRules} supplied by search-strategies,
 * whose {@code dev.keel.search.ExperimentConfigs} is the one place that puts both together (and
 * hands out the loaders that use them).
 */
package dev.keel.api.config;
