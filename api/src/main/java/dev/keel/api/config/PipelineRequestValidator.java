package dev.keel.api.config;

import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.FinalTraining;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineReuse;
import dev.keel.api.v1.Promotion;
import dev.keel.api.v1.Task;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Semantic rules of a pipeline request; the experiment inside is checked under {@code experiment.},
 * its searcher by the {@link SearcherRules} given.
 */
public final class PipelineRequestValidator {
  private static final Set<String> SPLITS = Set.of(Splits.TRAIN, Splits.TEST);

  /** A table name (one path segment, not starting with a dot), a URI or an absolute path. */
  static final String TABLE = "[A-Za-z0-9_][A-Za-z0-9_.\\-]*|[a-z0-9]+://.+|/.+";

  /** The model registry's names. */
  public static final String MODEL_NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}";

  private PipelineRequestValidator() {}

  public static List<ConfigProblem> validate(PipelineRequest r, SearcherRules searcher) {
    Problems problems = new Problems();
    PipelineReuse reuse = r.getReuse();
    boolean reuseTable = reuse.hasTable();
    if (r.hasSource() && reuseTable) {
      problems.add(
          "reuse.table", "set either source (run the ETL) or reuse.table (skip it), not both");
    } else if (reuseTable) {
      if (reuse.getTable().getTable().isBlank()) {
        problems.add("reuse.table.table", "required (the table to train on, a name or a URI)");
      } else if (reuse.getTable().hasVersion() && reuse.getTable().getVersion() < 0) {
        problems.add("reuse.table.version", "must be >= 0, got " + reuse.getTable().getVersion());
      }
    } else if (!r.hasSource()) {
      problems.add(
          "source",
          "missing data source (set source.format, e.g. fashion_mnist, and source.uri; "
              + "or reuse.table to use a table that exists)");
    } else if (r.getSource().getFormat() == DataSource.Format.FORMAT_UNSPECIFIED) {
      problems.add("source.format", "required (expected " + SourceFormat.expected() + ")");
    } else if (SourceFormat.of(r.getSource().getFormat()).isEmpty()) {
      problems.add(
          "source.format",
          EnumNames.unrecognized(
              r.getSource().getFormatValue(), DataSource.Format.getDescriptor()));
    } else {
      source(r.getSource(), SourceFormat.of(r.getSource().getFormat()).orElseThrow(), problems);
    }
    if (r.hasSource()) {
      if (r.getTargetTable().isBlank()) {
        problems.add("target_table", "required (name of the Delta table the ETL stage writes)");
      } else if (!r.getTargetTable().matches(TABLE)) {
        problems.add(
            "target_table",
            "must be a table name ([A-Za-z0-9_.-], not starting with '.') or a URI, got '"
                + r.getTargetTable()
                + "'");
      }
    }
    boolean reuseModel = reuse.hasModel();
    if (reuseModel) {
      if (!reuse.getModel().getName().matches(MODEL_NAME)) {
        problems.add(
            "reuse.model.name",
            "must match " + MODEL_NAME + ", got '" + reuse.getModel().getName() + "'");
      }
      if (reuse.getModel().getVersion() < 1) {
        problems.add("reuse.model.version", "required (a registered version, 1 or more)");
      }
      if (!reuse.getExperimentId().isEmpty()) {
        problems.add(
            "reuse.experiment_id",
            "a reused model skips the search: set reuse.model or reuse.experiment_id, not both");
      }
    }
    if (!reuse.getExperimentId().isEmpty() && r.hasExperiment()) {
      problems.add(
          "experiment",
          "reuse.experiment_id brings its own config: remove experiment or reuse.experiment_id");
    }
    boolean searches = !reuseModel && reuse.getExperimentId().isEmpty();
    if (searches && !r.hasExperiment()) {
      problems.add(
          "experiment",
          "required (the experiment config to search and train; or reuse.experiment_id / reuse.model)");
    } else if (r.hasExperiment()) {
      ExperimentConfigValidator.validate(
          r.getExperiment(), "experiment", false, searcher, problems);
    }
    if (r.hasFinalTraining()) {
      finalTraining(r, reuseModel, problems);
    }
    if (r.hasWarmStart()) {
      warmStart(r, searches, problems);
    }
    if (!r.getModelName().isEmpty() && !r.getModelName().matches(MODEL_NAME)) {
      problems.add("model_name", "must match " + MODEL_NAME + ", got '" + r.getModelName() + "'");
    } else if (r.getModelName().isEmpty()
        && !r.getName().isEmpty()
        && !r.getName().matches(MODEL_NAME)) {
      // checked now, not at the register stage after the ETL and the search have run
      problems.add(
          "name",
          "'"
              + r.getName()
              + "' names the registered model, so it must match "
              + MODEL_NAME
              + " (or set model_name)");
    }
    if (r.getPromotion().getPolicy() == Promotion.Policy.UNRECOGNIZED) {
      problems.add(
          "promotion.policy",
          EnumNames.unrecognized(
              r.getPromotion().getPolicyValue(), Promotion.Policy.getDescriptor()));
    }
    String split = r.getInference().getSplit();
    if (!split.isEmpty() && !SPLITS.contains(split)) {
      problems.add(
          "inference.split",
          "unknown split '" + split + "' (expected " + Splits.TRAIN + "|" + Splits.TEST + ")");
    }
    String predictions = r.getInference().getPredictionsTable();
    if (!predictions.isEmpty() && !predictions.matches(TABLE)) {
      problems.add(
          "inference.predictions_table",
          "must be a table name ([A-Za-z0-9_.-], not starting with '.') or a URI, got '"
              + predictions
              + "'");
    }
    if (r.getInference().hasDrift()) {
      DriftConfigRules.validate(r.getInference().getDrift(), "inference.drift", problems);
    }
    return problems.list();
  }

  private static void finalTraining(PipelineRequest r, boolean reuseModel, Problems problems) {
    FinalTraining f = r.getFinalTraining();
    if (reuseModel) {
      problems.add(
          "final_training",
          "a reused model is scored as it is: remove final_training or reuse.model");
      return;
    }
    if (f.hasSlotsPerTrial()
        && (f.getSlotsPerTrial() < 1
            || f.getSlotsPerTrial() > ExperimentConfigValidator.MAX_SLOTS_PER_TRIAL)) {
      problems.add(
          "final_training.slots_per_trial",
          "must be 1.."
              + ExperimentConfigValidator.MAX_SLOTS_PER_TRIAL
              + ", got "
              + f.getSlotsPerTrial());
    }
    if (!f.hasMaxLength()) {
      problems.add(
          "final_training.max_length",
          "required (how far to train the best trial, e.g. {batches: 6000})");
      return;
    }
    TrainingLength.problem(f.getMaxLength(), "final_training.max_length")
        .ifPresent(p -> problems.add(p.path(), p.message()));
    Optional<LengthUnit> unit = TrainingLength.unitOf(f.getMaxLength());
    Optional<LengthUnit> searchUnit =
        r.hasExperiment()
            ? TrainingLength.unitOf(r.getExperiment().getSearcher().getMaxLength())
            : Optional.empty();
    if (unit.isPresent() && searchUnit.isPresent() && unit.get() != searchUnit.get()) {
      problems.add(
          "final_training.max_length",
          "must be in "
              + searchUnit.get().label()
              + " like experiment.searcher.max_length "
              + "(the best trial's length is compared with it), got "
              + unit.get().label());
    }
  }

  /**
   * Which registered version is checked here; whether it exists is checked at submission and when
   * the pipeline starts.
   */
  private static void warmStart(PipelineRequest r, boolean searches, Problems problems) {
    ModelSelector m = r.getWarmStart().getModel();
    if (!searches) {
      problems.add(
          "warm_start",
          "only a search starts from it: remove warm_start, reuse.model or reuse.experiment_id");
      return;
    }
    if (!m.getName().matches(MODEL_NAME)) {
      problems.add(
          "warm_start.model.name", "must match " + MODEL_NAME + ", got '" + m.getName() + "'");
    }
    boolean byStage = m.getStage() != ModelStage.MODEL_STAGE_UNSPECIFIED;
    if (byStage && m.getVersion() != 0) {
      problems.add("warm_start.model", "set version or stage, not both");
    } else if (byStage && m.getStage() != ModelStage.champion) {
      // only the champion is one version at a time
      problems.add(
          "warm_start.model.stage",
          "stage '"
              + m.getStage()
              + "' names no single version (expected champion, or set version)");
    } else if (!byStage && m.getVersion() < 1) {
      problems.add("warm_start.model", "required: version (1 or more) or stage: champion");
    }
  }

  /**
   * A tabular source's label: one {@code label_column}, or for {@code task: multilabel} the {@code
   * label_columns}, each named once and none the split column.
   */
  private static void labelColumns(DataSource s, String format, Problems problems) {
    if (s.getTask() != Task.multilabel) {
      if (s.getLabelColumn().isBlank()) {
        problems.add(
            "source.label_column", "required for " + format + " (the column holding the label)");
      }
      if (s.getLabelColumnsCount() > 0) {
        problems.add(
            "source.label_columns",
            "only for task multilabel (one label per column); "
                + (s.getTask() == Task.regression ? "regression" : "classification")
                + " takes one label_column");
      }
      return;
    }
    if (!s.getLabelColumn().isEmpty()) {
      problems.add(
          "source.label_column", "task multilabel takes label_columns (one column per label)");
    }
    if (s.getLabelColumnsCount() == 0) {
      problems.add(
          "source.label_columns", "required for task multilabel (the columns, one per label)");
    }
    if (s.getLabelLimitsCount() > 0) {
      problems.add("source.label_limits", "only for classification (a class per row)");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < s.getLabelColumnsCount(); i++) {
      String c = s.getLabelColumns(i);
      String field = "source.label_columns[" + i + "]";
      if (c.isBlank()) {
        problems.add(field, "empty column name");
      } else if (!seen.add(c)) {
        problems.add(field, "'" + c + "' is named twice");
      } else if (c.contains(",")) {
        // the table's label names are one comma-separated property
        problems.add(field, "'" + c + "' holds a comma, which a label name cannot");
      } else if (c.equals("split")) {
        problems.add(field, "'split' is the column that chooses each row's split");
      } else if (s.getFeatureColumnsList().contains(c)) {
        problems.add(field, "'" + c + "' is also a feature column");
      }
    }
  }

  /** The source's own fields; whether its files exist is checked at submission (I/O), not here. */
  private static void source(DataSource s, SourceFormat sourceFormat, Problems problems) {
    String format = sourceFormat.configName();
    if (s.getTask() == Task.regression || s.getTask() == Task.multilabel) {
      // the ETL and the trainer take a regression table, but a pipeline's later stages (scoring,
      // the champion comparison, drift) read one integer label; refused here, not at its last stage
      problems.add(
          "source.task",
          s.getTask().name()
              + " is not yet run by pipelines, whose scoring and champion comparison take"
              + " classification tables only (the default task)");
    } else if (s.getTask() != Task.TASK_UNSPECIFIED && s.getTask() != Task.classification) {
      problems.add("source.task", EnumNames.unrecognized(s.getTaskValue(), Task.getDescriptor()));
    }
    if (sourceFormat.tabular()) {
      labelColumns(s, format, problems);
    } else {
      if (!s.getLabelColumn().isEmpty()) {
        problems.add("source.label_column", "only for csv and parquet sources");
      }
      if (s.getLabelColumnsCount() > 0) {
        problems.add("source.label_columns", "only for csv and parquet sources");
      }
      if (s.getFeatureColumnsCount() > 0) {
        problems.add("source.feature_columns", "only for csv and parquet sources");
      }
      if (!s.getEncoding().isEmpty()) {
        problems.add(
            SourceEncoding.FIELD,
            "only for csv and parquet sources (images and IDX files are not text)");
      }
    }
    if (sourceFormat.tabular() && SourceEncoding.charset(s.getEncoding()).isEmpty()) {
      problems.add(SourceEncoding.FIELD, SourceEncoding.unknown(s.getEncoding()));
    }
    if (sourceFormat.needsUri() && s.getUri().isBlank()) {
      problems.add("source.uri", "required (a local path, a file: URI or s3://bucket/prefix)");
    }
    if (s.hasTestFraction() && !(s.getTestFraction() >= 0 && s.getTestFraction() <= 1)) {
      problems.add("source.test_fraction", "must be in [0, 1], got " + s.getTestFraction());
    }
    if (!s.getImageSize().isEmpty()) {
      if (sourceFormat != SourceFormat.IMAGE_FOLDER) {
        problems.add("source.image_size", "only for image_folder sources");
      } else if (!s.getImageSize().matches("[1-9][0-9]{0,4}(x[1-9][0-9]{0,4})?")) {
        problems.add("source.image_size", "'" + s.getImageSize() + "' is not HxW (e.g. 28x28)");
      }
    }
    if (s.getImageMode() == DataSource.ImageMode.UNRECOGNIZED) {
      problems.add(
          "source.image_mode",
          EnumNames.unrecognized(s.getImageModeValue(), DataSource.ImageMode.getDescriptor()));
    } else if (s.getImageMode() != DataSource.ImageMode.IMAGE_MODE_UNSPECIFIED
        && sourceFormat != SourceFormat.IMAGE_FOLDER) {
      problems.add(
          "source.image_mode",
          "only for image_folder sources (" + sourceFormat.configName() + " has its own channels)");
    }
    if (s.getNormalize() && sourceFormat.rows() != SourceFormat.Rows.IMAGES) {
      problems.add(
          "source.normalize",
          "only for image sources (tabular_mlp standardizes features itself: hyperparameter"
              + " standardize)");
    }
    if (s.getMode() == IngestMode.UNRECOGNIZED) {
      problems.add(
          "source.mode", EnumNames.unrecognized(s.getModeValue(), IngestMode.getDescriptor()));
    }
    if (s.getOnBadRecord() == DataSource.OnBadRecord.UNRECOGNIZED) {
      problems.add(
          "source.on_bad_record",
          EnumNames.unrecognized(s.getOnBadRecordValue(), DataSource.OnBadRecord.getDescriptor()));
    }
    s.getLabelLimitsMap()
        .forEach(
            (label, limit) -> {
              if (label.isBlank()) {
                problems.add(
                    "source.label_limits", "a class name or label number is required as the key");
              } else if (limit < 0) {
                problems.add("source.label_limits." + label, "must be >= 0, got " + limit);
              }
            });
  }
}
