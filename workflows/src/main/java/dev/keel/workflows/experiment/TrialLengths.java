package dev.keel.workflows.experiment;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Length;

/** Lengths of an experiment are counted in the unit of {@code searcher.max_length}. */
final class TrialLengths {
  private TrialLengths() {}

  static Length unitLength(ExperimentConfig config, long units) {
    return switch (config.getSearcher().getMaxLength().getUnitCase()) {
      case RECORDS -> Length.newBuilder().setRecords(units).build();
      case EPOCHS -> Length.newBuilder().setEpochs(units).build();
      default -> Length.newBuilder().setBatches(units).build();
    };
  }

  static String describe(ExperimentConfig config, long units) {
    return units + " " + config.getSearcher().getMaxLength().getUnitCase().name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * {@code min_validation_period} in the experiment's unit (0 = validate only where the searcher asks).
   * A period in another unit than {@code max_length} is rejected by validation before the experiment starts.
   */
  static long minValidationPeriod(ExperimentConfig config) {
    return config.hasMinValidationPeriod() ? amount(config.getMinValidationPeriod()) : 0;
  }

  /** The trainer checkpoints every so many batches (and always at the end of a step). */
  static long checkpointEveryBatches(ExperimentConfig config) {
    return config.getMinCheckpointPeriod().getBatches();
  }

  static long amount(Length length) {
    return switch (length.getUnitCase()) {
      case BATCHES -> length.getBatches();
      case RECORDS -> length.getRecords();
      case EPOCHS -> length.getEpochs();
      case UNIT_NOT_SET -> 0;
    };
  }
}
