package dev.keel.api.config;

import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import java.util.Set;

/**
 * Semantic rules of a pipeline request; the experiment inside is checked under {@code experiment.}, its searcher
 * by the {@link SearcherRules} given.
 */
public final class PipelineRequestValidator {
  public static final Set<String> SOURCE_FORMATS = Set.of("fashion_mnist");
  private static final Set<String> SPLITS = Set.of("train", "test");

  private PipelineRequestValidator() {}

  public static List<ConfigProblem> validate(PipelineRequest r, SearcherRules searcher) {
    Problems problems = new Problems();
    if (!r.hasSource()) {
      problems.add("source", "missing data source (set source.format, e.g. fashion_mnist, and source.uri)");
    } else if (r.getSource().getFormat().isEmpty()) {
      problems.add("source.format", "required (expected " + String.join("|", SOURCE_FORMATS) + ")");
    } else if (!SOURCE_FORMATS.contains(r.getSource().getFormat())) {
      problems.add("source.format", "unknown format '" + r.getSource().getFormat() + "' (expected " + String.join("|", SOURCE_FORMATS) + ")");
    }
    if (r.getTargetTable().isBlank()) {
      problems.add("target_table", "required (name of the Delta table the ETL stage writes)");
    } else if (!r.getTargetTable().matches("[A-Za-z0-9_.\\-]+|[a-z0-9]+://.+|/.+")) {
      problems.add("target_table", "must be a table name ([A-Za-z0-9_.-]) or a URI, got '" + r.getTargetTable() + "'");
    }
    if (!r.hasExperiment()) {
      problems.add("experiment", "required (the experiment config to train)");
    } else {
      ExperimentConfigValidator.validate(r.getExperiment(), "experiment", false, searcher, problems);
    }
    String split = r.getInference().getSplit();
    if (!split.isEmpty() && !SPLITS.contains(split)) {
      problems.add("inference.split", "unknown split '" + split + "' (expected train|test)");
    }
    return problems.list();
  }
}
