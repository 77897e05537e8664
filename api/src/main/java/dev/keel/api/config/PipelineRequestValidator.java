package dev.keel.api.config;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import java.util.Set;

/**
 * Semantic rules of a pipeline request; the experiment inside is checked under {@code experiment.}, its searcher
 * by the {@link SearcherRules} given.
 */
public final class PipelineRequestValidator {
  public static final Set<String> SOURCE_FORMATS = Set.of("fashion_mnist", "image_folder", "csv", "parquet");
  private static final Set<String> TABULAR = Set.of("csv", "parquet");
  private static final Set<String> MODES = Set.of("append", "overwrite");
  private static final Set<String> ON_BAD_RECORD = Set.of("fail", "skip");
  private static final Set<String> SPLITS = Set.of("train", "test");

  private PipelineRequestValidator() {}

  public static List<ConfigProblem> validate(PipelineRequest r, SearcherRules searcher) {
    Problems problems = new Problems();
    if (!r.hasSource()) {
      problems.add("source", "missing data source (set source.format, e.g. fashion_mnist, and source.uri)");
    } else if (r.getSource().getFormat().isEmpty()) {
      problems.add("source.format", "required (expected " + String.join("|", SOURCE_FORMATS.stream().sorted().toList()) + ")");
    } else if (!SOURCE_FORMATS.contains(r.getSource().getFormat())) {
      problems.add("source.format", "unknown format '" + r.getSource().getFormat() + "' (expected " + String.join("|", SOURCE_FORMATS.stream().sorted().toList()) + ")");
    } else {
      source(r.getSource(), problems);
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

  /** The source's own fields; whether its files exist is checked at submission (I/O), not here. */
  private static void source(DataSource s, Problems problems) {
    String format = s.getFormat();
    if (TABULAR.contains(format)) {
      if (s.getLabelColumn().isBlank()) {
        problems.add("source.label_column", "required for " + format + " (the column holding the label)");
      }
    } else {
      if (!s.getLabelColumn().isEmpty()) {
        problems.add("source.label_column", "only for csv and parquet sources");
      }
      if (s.getFeatureColumnsCount() > 0) {
        problems.add("source.feature_columns", "only for csv and parquet sources");
      }
    }
    if (!format.equals("fashion_mnist") && s.getUri().isBlank()) {
      problems.add("source.uri", "required (a local path, a file: URI or s3://bucket/prefix)");
    }
    if (s.hasTestFraction() && !(s.getTestFraction() >= 0 && s.getTestFraction() <= 1)) {
      problems.add("source.test_fraction", "must be in [0, 1], got " + s.getTestFraction());
    }
    if (!s.getImageSize().isEmpty()) {
      if (!format.equals("image_folder")) {
        problems.add("source.image_size", "only for image_folder sources");
      } else if (!s.getImageSize().matches("[1-9][0-9]{0,4}(x[1-9][0-9]{0,4})?")) {
        problems.add("source.image_size", "'" + s.getImageSize() + "' is not HxW (e.g. 28x28)");
      }
    }
    if (!s.getMode().isEmpty() && !MODES.contains(s.getMode())) {
      problems.add("source.mode", "unknown mode '" + s.getMode() + "' (expected append|overwrite)");
    }
    if (!s.getOnBadRecord().isEmpty() && !ON_BAD_RECORD.contains(s.getOnBadRecord())) {
      problems.add("source.on_bad_record", "unknown value '" + s.getOnBadRecord() + "' (expected fail|skip)");
    }
  }
}
