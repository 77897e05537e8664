package dev.keel.gpu.train;

import dev.keel.tables.dataset.LabeledExamples;

/**
 * A train split cut into the rows that train and the rows that validate ({@link
 * ValidationHoldOut}).
 */
public record TrainValidationSplit(LabeledExamples train, LabeledExamples validation) {

  /** The default rule's cut: {@code fraction} held out by row-id hash, per label. */
  public static TrainValidationSplit of(LabeledExamples all, double fraction) {
    ValidationHoldOut defaults = ValidationHoldOut.defaults();
    return new ValidationHoldOut(fraction, defaults.stratify(), defaults.seed(), false).split(all);
  }
}
