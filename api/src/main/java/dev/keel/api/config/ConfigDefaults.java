package dev.keel.api.config;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointStorage;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.Resources;
import dev.keel.api.v1.ValidationSpec;
import java.time.Duration;

/**
 * The value of every experiment setting a config or run options may leave unset. Workflows apply
 * {@link #withDefaults} once, to their input, so everything downstream (trials, the trainer's
 * request, checkpoint GC) reads explicit values and no two places can disagree on a default.
 * Settings whose absence means "none" (min_validation_period, data.version, storage_path) have no
 * default; searcher knobs belong to their searcher.
 */
public final class ConfigDefaults {
  /** 5,000 of Fashion-MNIST's 60,000 training images, as in the usual 55,000/5,000 split. */
  public static final double VALIDATION_FRACTION = 5000.0 / 60000.0;

  /**
   * Each label keeps its share of validation rows: image folders and many CSVs list their rows
   * class by class, so any cut in table order would validate on a few classes only.
   */
  public static final boolean VALIDATION_STRATIFY = true;

  /**
   * The row-id hash's seed, the same for every experiment, so experiments on one data version
   * validate alike.
   */
  public static final long VALIDATION_SEED = 0;

  /** Restarts after worker failures per trial (a pipeline trains one trial). */
  public static final int MAX_RESTARTS = 5;

  /**
   * Periodic checkpoints bound the work a dead worker loses. 200 batches take seconds on a CPU and
   * a checkpoint of a small model is written in the background, so the bound costs little.
   */
  public static final TrainingLength CHECKPOINT_PERIOD = TrainingLength.batches(200);

  public static final String RESOURCE_POOL = "cpu";
  public static final int SLOTS_PER_TRIAL = 1;

  /** Determined's checkpoint GC defaults: keep each trial's best and latest checkpoint. */
  public static final int SAVE_EXPERIMENT_BEST = 0;

  public static final int SAVE_TRIAL_BEST = 1;
  public static final int SAVE_TRIAL_LATEST = 1;

  /**
   * How long a training worker may stay silent before its attempt counts as dead. The trainer
   * heartbeats every second or two, so this only needs to outlast pauses such as a slow checkpoint
   * upload; a dead worker costs at most this long before its step restarts.
   */
  public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(60);

  /** Continue-as-new well below Temporal's 51,200-event history limit. */
  public static final int CONTINUE_AS_NEW_AFTER_EVENTS = 8000;

  public static final int CATALOG_BATCH_ROWS = 200;

  private ConfigDefaults() {}

  /**
   * {@code config} with every unset defaulted field set; fields already set are kept. Idempotent.
   */
  public static ExperimentConfig withDefaults(ExperimentConfig config) {
    ExperimentConfig.Builder c = config.toBuilder();
    DataSpec.Builder data = c.getDataBuilder();
    ValidationSpec.Builder validation = c.getValidationBuilder();
    if (!validation.hasFraction()) {
      validation.setFraction(
          data.hasValidationFraction() ? data.getValidationFraction() : VALIDATION_FRACTION);
    }
    if (!validation.hasStratify()) {
      validation.setStratify(VALIDATION_STRATIFY);
    }
    if (!validation.hasSeed()) {
      validation.setSeed(VALIDATION_SEED);
    }
    // the older spelling says the same, for readers of earlier configs and requests
    data.setValidationFraction(validation.getFraction());
    if (!c.hasMaxRestarts()) {
      c.setMaxRestarts(MAX_RESTARTS);
    }
    if (!c.hasMinCheckpointPeriod()) {
      c.setMinCheckpointPeriod(CHECKPOINT_PERIOD.toProto());
    }
    Resources.Builder resources = c.getResourcesBuilder();
    if (resources.getResourcePool().isBlank()) {
      resources.setResourcePool(RESOURCE_POOL);
    }
    if (!resources.hasSlotsPerTrial()) {
      resources.setSlotsPerTrial(SLOTS_PER_TRIAL);
    }
    c.setCheckpointStorage(withDefaults(config.getCheckpointStorage()));
    return c.build();
  }

  public static CheckpointStorage withDefaults(CheckpointStorage storage) {
    CheckpointStorage.Builder s = storage.toBuilder();
    if (!s.hasSaveExperimentBest()) {
      s.setSaveExperimentBest(SAVE_EXPERIMENT_BEST);
    }
    if (!s.hasSaveTrialBest()) {
      s.setSaveTrialBest(SAVE_TRIAL_BEST);
    }
    if (!s.hasSaveTrialLatest()) {
      s.setSaveTrialLatest(SAVE_TRIAL_LATEST);
    }
    return s.build();
  }

  /** Run options leave a setting unset with 0 (proto3 scalars have no presence). */
  public static ExperimentRunOptions withDefaults(ExperimentRunOptions options) {
    ExperimentRunOptions.Builder o = options.toBuilder();
    if (o.getHeartbeatTimeoutSeconds() <= 0) {
      o.setHeartbeatTimeoutSeconds((int) HEARTBEAT_TIMEOUT.toSeconds());
    }
    if (o.getContinueAsNewAfterEvents() <= 0) {
      o.setContinueAsNewAfterEvents(CONTINUE_AS_NEW_AFTER_EVENTS);
    }
    if (o.getCatalogBatchRows() <= 0) {
      o.setCatalogBatchRows(CATALOG_BATCH_ROWS);
    }
    return o.build();
  }
}
