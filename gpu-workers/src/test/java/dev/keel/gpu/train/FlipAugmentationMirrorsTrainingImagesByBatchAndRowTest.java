package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.TabularMlp;
import dev.keel.gpu.testing.Requests;
import dev.keel.tables.dataset.LabeledFeatures;
import dev.keel.tables.dataset.LabeledImages;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlipAugmentationMirrorsTrainingImagesByBatchAndRowTest {
  private static final int N = 400;

  /** N images of 2x3 pixels, image i holding bytes i, i+1, …, i+5 (mod 256). */
  private static LabeledImages images() {
    byte[] pixels = new byte[N * 6];
    long[] ids = new long[N];
    for (int i = 0; i < N; i++) {
      ids[i] = i;
      for (int p = 0; p < 6; p++) {
        pixels[i * 6 + p] = (byte) (i + p);
      }
    }
    return new LabeledImages(ids, new int[N], pixels, 2, 3);
  }

  private static Augmentation flip(long seed, LabeledImages data) {
    return Augmentation.of(
        Hyperparameters.resolve(
            new FashionCnn(), Map.of(), Map.of("augment", Requests.str("flip"))),
        data,
        seed);
  }

  @Test
  void eachImageIsKeptOrMirroredLeftToRightByItsSeedBatchAndRow() {
    LabeledImages data = images();
    int[] rows = Batches.range(0, N);
    Augmentation flip = flip(42, data);
    try (NDManager m = NDManager.newBaseManager()) {
      float[] plain = Batches.inputs(m, data, rows).toFloatArray();
      float[] x = flip.inputs(m, data, rows, 7).toFloatArray();
      int mirrored = 0;
      for (int i = 0; i < N; i++) {
        float[] original = Arrays.copyOfRange(plain, i * 6, i * 6 + 6);
        float[] mirror = {
          original[2], original[1], original[0], original[5], original[4], original[3]
        };
        float[] got = Arrays.copyOfRange(x, i * 6, i * 6 + 6);
        assertArrayEquals(flip.mirrors(7, i) ? mirror : original, got, "image " + i);
        mirrored += flip.mirrors(7, i) ? 1 : 0;
      }
      assertTrue(mirrored > N * 0.4 && mirrored < N * 0.6, mirrored + " of " + N + " mirrored");

      // the same batch again (a resume, another rank): the same images; another batch or seed:
      // others
      assertArrayEquals(x, flip(42, data).inputs(m, data, rows, 7).toFloatArray());
      assertNotEquals(
          Arrays.toString(x), Arrays.toString(flip.inputs(m, data, rows, 8).toFloatArray()));
      assertNotEquals(
          Arrays.toString(x),
          Arrays.toString(flip(43, data).inputs(m, data, rows, 7).toFloatArray()));
      // a rank given rows 200..399 mirrors them as the whole batch does
      int[] half = Batches.range(200, N);
      assertArrayEquals(
          Arrays.copyOfRange(x, 200 * 6, N * 6), flip.inputs(m, data, half, 7).toFloatArray());
      // none: the plain inputs
      Augmentation none = Augmentation.of(Hyperparameters.defaults(new FashionCnn()), data, 42);
      assertArrayEquals(plain, none.inputs(m, data, rows, 7).toFloatArray());
    }
  }

  @Test
  void flipOnFeaturesAndUnknownKindsAreRefusedNamingTheField() {
    LabeledFeatures features =
        new LabeledFeatures(
            new long[] {1}, new int[] {0}, new float[] {1f, 2f}, 2, List.of("a", "b"), List.of());
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                Augmentation.of(
                    Hyperparameters.resolve(
                        new TabularMlp(), Map.of(), Map.of("augment", Requests.str("flip"))),
                    features,
                    1));
    assertEquals(
        "hyperparameters.augment: flip mirrors images, and the table holds " + features.describe(),
        e.getMessage());
    e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                Augmentation.of(
                    Hyperparameters.resolve(
                        new FashionCnn(), Map.of(), Map.of("augment", Requests.str("rotate"))),
                    images(),
                    1));
    assertEquals(
        "hyperparameters.augment: unknown augmentation 'rotate' (accepts: none, flip, shift, crop, or a list"
            + " such as flip,crop)",
        e.getMessage());
    e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                Augmentation.of(
                    Hyperparameters.resolve(
                        new TabularMlp(), Map.of(), Map.of("augment", Requests.str("shift"))),
                    features,
                    1));
    assertEquals(
        "hyperparameters.augment: shift moves images, and the table holds " + features.describe(),
        e.getMessage());
  }
}
