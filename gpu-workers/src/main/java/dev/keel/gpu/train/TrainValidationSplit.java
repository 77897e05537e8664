package dev.keel.gpu.train;

import dev.keel.tables.dataset.LabeledExamples;

/** Splits a train split into training rows and the held-out last {@code fraction} for validation. */
public record TrainValidationSplit(LabeledExamples train, LabeledExamples validation) {

  public static TrainValidationSplit of(LabeledExamples all, double fraction) {
    int held = (int) Math.round(all.size() * fraction);
    if (held < 1 || held >= all.size()) {
      throw new IllegalArgumentException(
          "validation_fraction " + fraction + " of " + all.size() + " rows leaves no training or no validation data");
    }
    int cut = all.size() - held;
    return new TrainValidationSplit(all.slice(0, cut), all.slice(cut, all.size()));
  }
}
