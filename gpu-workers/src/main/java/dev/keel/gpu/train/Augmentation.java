package dev.keel.gpu.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.TrainingHyperparameters;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledImages;
import java.util.Locale;

/**
 * How training inputs are varied ({@code augment}): {@code none}, or {@code flip}, which mirrors each
 * training image left to right with probability 1/2. Whether a row is mirrored depends only on the
 * trial's seed, the batch number and the row, so a resumed trial and every rank of a gang mirror the
 * same images; validation, test and scoring never are.
 */
public final class Augmentation {
  private static final Augmentation NONE = new Augmentation(false, 0);
  private final boolean flip;
  private final long seed;

  private Augmentation(boolean flip, long seed) {
    this.flip = flip;
    this.seed = seed;
  }

  /** @throws InvalidFieldException for an unknown kind, or {@code flip} on a table that holds no images */
  public static Augmentation of(Hyperparameters hp, LabeledExamples train, long seed) {
    String kind = hp.getString(TrainingHyperparameters.AUGMENT).trim().toLowerCase(Locale.ROOT);
    switch (kind) {
      case "none":
        return NONE;
      case "flip":
        if (!(train instanceof LabeledImages)) {
          throw new InvalidFieldException("hyperparameters." + TrainingHyperparameters.AUGMENT,
              "flip mirrors images, and the table holds " + train.describe());
        }
        return new Augmentation(true, seed);
      default:
        throw new InvalidFieldException("hyperparameters." + TrainingHyperparameters.AUGMENT,
            "unknown augmentation '" + kind + "' (accepts: none, flip)");
    }
  }

  /** The inputs of {@code rows} for training batch {@code batch}. */
  public NDArray inputs(NDManager manager, LabeledExamples data, int[] rows, long batch) {
    if (!flip) {
      return Batches.inputs(manager, data, rows);
    }
    long[] shape = data.exampleShape();
    int width = (int) shape[shape.length - 1];
    int size = data.exampleSize();
    float[] x = data.floats(rows);
    for (int i = 0; i < rows.length; i++) {
      if (mirrors(batch, rows[i])) {
        for (int line = i * size; line < (i + 1) * size; line += width) {
          for (int a = line, b = line + width - 1; a < b; a++, b--) {
            float t = x[a];
            x[a] = x[b];
            x[b] = t;
          }
        }
      }
    }
    return manager.create(x, new Shape(rows.length).addAll(new Shape(shape)));
  }

  boolean mirrors(long batch, int row) {
    return (Seeds.mix(Seeds.mix(seed ^ 0x464C4950L, batch), row) & 1) == 1;
  }
}
