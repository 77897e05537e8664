package dev.keel.gpu.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.TrainingHyperparameters;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledImages;
import java.util.Arrays;
import java.util.Locale;

/**
 * How training inputs are varied ({@code augment}): {@code none}, or a comma-separated list of
 * {@code flip}, which mirrors each training image left to right with probability 1/2, {@code
 * shift}, which moves it by up to {@value #MAX_SHIFT} pixels each way, and {@code crop}, a random
 * crop of the image padded by {@value #CROP_PADDING} black pixels on each side, back to its own
 * size (the same as moving it by up to that many pixels). Each offset is uniform in both directions
 * and the uncovered border is black (its normalised value when the table is normalised); every
 * channel of an image moves alike. What happens to a row depends only on the trial's seed, the
 * batch number and the row, so a resumed trial and every rank of a gang see the same images;
 * validation, test and scoring never are augmented.
 */
public final class Augmentation {
  /** The largest translation of {@code shift}, in pixels, each way. */
  public static final int MAX_SHIFT = 2;

  /** The padding of {@code crop}, in pixels, each side (as CIFAR training commonly pads). */
  public static final int CROP_PADDING = 4;

  private static final Augmentation NONE = new Augmentation(false, 0, 0);
  private final boolean flip;

  /** The largest move each way; 0 for none. */
  private final int shift;

  private final long seed;

  private Augmentation(boolean flip, int shift, long seed) {
    this.flip = flip;
    this.shift = shift;
    this.seed = seed;
  }

  /**
   * @throws InvalidFieldException for an unknown kind, or an image augmentation on a table that
   *     holds no images
   */
  public static Augmentation of(Hyperparameters hp, LabeledExamples train, long seed) {
    String value = hp.getString(TrainingHyperparameters.AUGMENT).trim().toLowerCase(Locale.ROOT);
    boolean flip = false;
    int shift = 0;
    for (String kind : value.split("\\s*,\\s*")) {
      switch (kind) {
        case "none" -> {}
        case "flip" -> flip = true;
        case "shift" -> shift = Math.max(shift, MAX_SHIFT);
        case "crop" -> shift = Math.max(shift, CROP_PADDING);
        default ->
            throw new InvalidFieldException(
                "hyperparameters." + TrainingHyperparameters.AUGMENT,
                "unknown augmentation '"
                    + kind
                    + "' (accepts: none, flip, shift, crop, or a list such as flip,crop)");
      }
      if (!kind.equals("none") && !(train instanceof LabeledImages)) {
        throw new InvalidFieldException(
            "hyperparameters." + TrainingHyperparameters.AUGMENT,
            kind
                + (kind.equals("flip") ? " mirrors" : kind.equals("crop") ? " crops" : " moves")
                + " images, and the table holds "
                + train.describe());
      }
    }
    return flip || shift > 0 ? new Augmentation(flip, shift, seed) : NONE;
  }

  /** The inputs of {@code rows} for training batch {@code batch}. */
  public NDArray inputs(NDManager manager, LabeledExamples data, int[] rows, long batch) {
    if (!flip && shift == 0) {
      return Batches.inputs(manager, data, rows);
    }
    LabeledImages images = (LabeledImages) data;
    int width = images.cols();
    int height = images.rows();
    int plane = height * width;
    int size = data.exampleSize();
    float[] x = data.floats(rows);
    float[] moved = shift > 0 ? new float[plane] : null;
    for (int i = 0; i < rows.length; i++) {
      int first = i * size;
      if (flip && mirrors(batch, rows[i])) {
        for (int line = first; line < first + size; line += width) {
          for (int a = line, b = line + width - 1; a < b; a++, b--) {
            float t = x[a];
            x[a] = x[b];
            x[b] = t;
          }
        }
      }
      if (shift > 0) {
        int[] d = offset(batch, rows[i]);
        if (d[0] != 0 || d[1] != 0) {
          for (int c = 0; c < images.channels(); c++) {
            translate(x, first + c * plane, width, height, d[0], d[1], images.black(c), moved);
          }
        }
      }
    }
    return manager.create(x, new Shape(rows.length).addAll(new Shape(data.exampleShape())));
  }

  boolean mirrors(long batch, int row) {
    return (Seeds.mix(Seeds.mix(seed ^ 0x464C4950L, batch), row) & 1) == 1;
  }

  /**
   * {@code {dx, dy}} of {@code shift} or {@code crop} for the row in the batch, each in [-s, s]
   * where s is the largest move.
   */
  int[] offset(long batch, int row) {
    long h = Seeds.mix(Seeds.mix(seed ^ 0x5348494654L, batch), row);
    int span = 2 * shift + 1;
    return new int[] {
      (int) Math.floorMod(h, span) - shift, (int) Math.floorMod(h >>> 16, span) - shift
    };
  }

  /**
   * Moves the plane at {@code x[first..]} right by dx and down by dy, {@code fill} where nothing
   * moved in.
   */
  private static void translate(
      float[] x, int first, int width, int height, int dx, int dy, float fill, float[] moved) {
    Arrays.fill(moved, fill);
    for (int r = Math.max(0, dy); r < Math.min(height, height + dy); r++) {
      int from = first + (r - dy) * width;
      int to = r * width;
      int c0 = Math.max(0, dx);
      int c1 = Math.min(width, width + dx);
      System.arraycopy(x, from + c0 - dx, moved, to + c0, c1 - c0);
    }
    System.arraycopy(moved, 0, x, first, moved.length);
  }
}
