package dev.keel.gpu.model;

import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledImages;

/**
 * The image normalisation a trial's model is fed with, kept in its hyperparameters {@value #MEAN}
 * and {@value #STD} (comma-separated, one value per channel, for pixels scaled to [0, 1]): set in a
 * configuration (e.g. the statistics a pretrained backbone was trained with) or recorded from a
 * table ETL normalised. Training, validation and every later scoring of the checkpoint feed the
 * model through the same numbers, whatever the scored table says.
 */
public final class InputNormalization {
  public static final String MEAN = "input_mean";
  public static final String STD = "input_std";

  private InputNormalization() {}

  /**
   * What the hyperparameters say; {@link ImageNormalization#NONE} when they say nothing.
   *
   * @throws InvalidFieldException naming the hyperparameter that is not a list of numbers, or when
   *     the two lists differ in length
   */
  public static ImageNormalization of(Hyperparameters hp) {
    String mean = hp.asMap().containsKey(MEAN) ? hp.getString(MEAN) : "";
    String std = hp.asMap().containsKey(STD) ? hp.getString(STD) : "";
    if (mean.isBlank() != std.isBlank()) {
      throw new InvalidFieldException(
          "hyperparameters." + (mean.isBlank() ? MEAN : STD),
          "set together with hyperparameters." + (mean.isBlank() ? STD : MEAN));
    }
    try {
      return ImageNormalization.parse(
          mean, std, "hyperparameters." + MEAN, "hyperparameters." + STD);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException("hyperparameters." + MEAN, e.getMessage());
    }
  }

  static Hyperparameters record(Hyperparameters hp, ImageNormalization normalization) {
    return hp.with(MEAN, ImageNormalization.format(normalization.mean()))
        .with(STD, ImageNormalization.format(normalization.std()));
  }

  /** {@code data} as the model with these hyperparameters takes it. */
  public static LabeledExamples applied(Hyperparameters hp, LabeledExamples data) {
    return data instanceof LabeledImages images ? images.withNormalization(of(hp)) : data;
  }
}
