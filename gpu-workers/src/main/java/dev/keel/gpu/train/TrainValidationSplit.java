package dev.keel.gpu.train;

import dev.keel.tables.dataset.LabeledImages;
import java.util.Arrays;

/** Splits a train split into training rows and the held-out last {@code fraction} for validation. */
public record TrainValidationSplit(LabeledImages train, LabeledImages validation) {

  public static TrainValidationSplit of(LabeledImages all, double fraction) {
    int held = (int) Math.round(all.size() * fraction);
    if (held < 1 || held >= all.size()) {
      throw new IllegalArgumentException(
          "validation_fraction " + fraction + " of " + all.size() + " rows leaves no training or no validation data");
    }
    int cut = all.size() - held;
    return new TrainValidationSplit(slice(all, 0, cut), slice(all, cut, all.size()));
  }

  static LabeledImages slice(LabeledImages all, int from, int to) {
    int px = all.imageBytes();
    return new LabeledImages(
        Arrays.copyOfRange(all.ids(), from, to),
        Arrays.copyOfRange(all.labels(), from, to),
        Arrays.copyOfRange(all.pixels(), from * px, to * px),
        all.rows(),
        all.cols());
  }
}
