package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.testing.Requests;
import dev.keel.tables.dataset.LabeledImages;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShiftAugmentationMovesImagesByUpToTwoPixelsTest {
  private static final int N = 300;
  private static final int SIDE = 6;

  /** N images of 6x6 pixels, pixel (r, c) of every image holding 1 + 6r + c. */
  private static LabeledImages images() {
    byte[] pixels = new byte[N * SIDE * SIDE];
    for (int i = 0; i < N; i++) {
      for (int p = 0; p < SIDE * SIDE; p++) {
        pixels[i * SIDE * SIDE + p] = (byte) (1 + p);
      }
    }
    return new LabeledImages(new long[N], new int[N], pixels, SIDE, SIDE);
  }

  private static Augmentation of(String kinds) {
    return Augmentation.of(
        Hyperparameters.resolve(new FashionCnn(), Map.of(), Map.of("augment", Requests.str(kinds))),
        images(),
        42);
  }

  @Test
  void eachImageMovesByItsOwnOffsetWithABlackBorder() {
    LabeledImages data = images();
    int[] rows = Batches.range(0, N);
    Augmentation shift = of("shift");
    Set<String> offsets = new HashSet<>();
    try (NDManager m = NDManager.newBaseManager()) {
      float[] x = shift.inputs(m, data, rows, 3).toFloatArray();
      for (int i = 0; i < N; i++) {
        int[] d = shift.offset(3, i);
        assertTrue(
            Math.abs(d[0]) <= Augmentation.MAX_SHIFT && Math.abs(d[1]) <= Augmentation.MAX_SHIFT,
            d[0] + "," + d[1]);
        offsets.add(d[0] + "," + d[1]);
        for (int r = 0; r < SIDE; r++) {
          for (int c = 0; c < SIDE; c++) {
            int sr = r - d[1];
            int sc = c - d[0];
            float expected =
                sr < 0 || sr >= SIDE || sc < 0 || sc >= SIDE ? 0f : (1 + SIDE * sr + sc) / 255f;
            assertEquals(
                expected,
                x[i * SIDE * SIDE + r * SIDE + c],
                1e-7,
                "image " + i + " pixel " + r + "," + c);
          }
        }
      }
      assertEquals(25, offsets.size(), "every offset in [-2, 2]^2 occurs: " + offsets);
      // a resume or another rank: the same rows of the same batch move the same way
      assertArrayEquals(x, of("shift").inputs(m, data, rows, 3).toFloatArray());
    }
  }

  @Test
  void flipAndShiftTogetherMirrorThenMove() {
    LabeledImages data = images();
    int[] rows = Batches.range(0, N);
    Augmentation both = of("flip, shift");
    Augmentation flip = of("flip");
    try (NDManager m = NDManager.newBaseManager()) {
      float[] x = both.inputs(m, data, rows, 5).toFloatArray();
      float[] mirrored = flip.inputs(m, data, rows, 5).toFloatArray();
      for (int i = 0; i < N; i++) {
        assertEquals(
            flip.mirrors(5, i), both.mirrors(5, i), "the same rows mirror with or without shift");
        int[] d = both.offset(5, i);
        for (int r = 0; r < SIDE; r++) {
          for (int c = 0; c < SIDE; c++) {
            int sr = r - d[1];
            int sc = c - d[0];
            float expected =
                sr < 0 || sr >= SIDE || sc < 0 || sc >= SIDE
                    ? 0f
                    : mirrored[i * SIDE * SIDE + sr * SIDE + sc];
            assertEquals(
                expected,
                x[i * SIDE * SIDE + r * SIDE + c],
                0f,
                "image " + i + " pixel " + r + "," + c);
          }
        }
      }
    }
  }
}
