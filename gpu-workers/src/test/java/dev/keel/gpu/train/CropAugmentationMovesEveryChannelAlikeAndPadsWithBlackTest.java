package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.testing.Requests;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledImages;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code augment: crop} on normalised 3-channel images: a random crop of the image padded by 4
 * black pixels, each channel moved alike, the padding the normalised value of black.
 */
class CropAugmentationMovesEveryChannelAlikeAndPadsWithBlackTest {
  private static final int N = 400;
  private static final int SIDE = 10;
  private static final int PLANE = SIDE * SIDE;
  private static final ImageNormalization NORMALIZATION =
      new ImageNormalization(new float[] {0.2f, 0.4f, 0.6f}, new float[] {0.5f, 0.25f, 0.1f});

  /** Pixel (c, r, col) of every image holds 1 + 40c + 3r + col. */
  private static LabeledImages images() {
    byte[] pixels = new byte[N * 3 * PLANE];
    for (int i = 0; i < N; i++) {
      for (int c = 0; c < 3; c++) {
        for (int p = 0; p < PLANE; p++) {
          pixels[(i * 3 + c) * PLANE + p] = (byte) (1 + 40 * c + 3 * (p / SIDE) + p % SIDE);
        }
      }
    }
    return new LabeledImages(new long[N], new int[N], pixels, 3, SIDE, SIDE, NORMALIZATION);
  }

  private static Augmentation of(String kinds, LabeledImages data) {
    return Augmentation.of(
        Hyperparameters.resolve(new FashionCnn(), Map.of(), Map.of("augment", Requests.str(kinds))),
        data,
        7);
  }

  @Test
  void everyChannelMovesByTheRowsOffsetAndTheBorderIsNormalisedBlack() {
    LabeledImages data = images();
    int[] rows = Batches.range(0, N);
    Augmentation crop = of("crop", data);
    Set<String> offsets = new HashSet<>();
    try (NDManager m = NDManager.newBaseManager()) {
      float[] x = crop.inputs(m, data, rows, 11).toFloatArray();
      for (int i = 0; i < N; i++) {
        int[] d = crop.offset(11, i);
        assertTrue(
            Math.abs(d[0]) <= Augmentation.CROP_PADDING
                && Math.abs(d[1]) <= Augmentation.CROP_PADDING,
            d[0] + "," + d[1]);
        offsets.add(d[0] + "," + d[1]);
        for (int c = 0; c < 3; c++) {
          for (int r = 0; r < SIDE; r++) {
            for (int col = 0; col < SIDE; col++) {
              int sr = r - d[1];
              int sc = col - d[0];
              int b = sr < 0 || sr >= SIDE || sc < 0 || sc >= SIDE ? 0 : 1 + 40 * c + 3 * sr + sc;
              float expected = (b / 255f - NORMALIZATION.mean()[c]) / NORMALIZATION.std()[c];
              assertEquals(
                  expected,
                  x[(i * 3 + c) * PLANE + r * SIDE + col],
                  1e-6,
                  "image " + i + " channel " + c + " pixel " + r + "," + col);
            }
          }
        }
      }
      assertEquals(81, offsets.size(), "every offset in [-4, 4]^2 occurs: " + offsets);
      assertArrayEquals(x, of("crop", data).inputs(m, data, rows, 11).toFloatArray());
    }
  }

  @Test
  void aFlipMirrorsEachChannelsRows() {
    LabeledImages data = images();
    int[] rows = Batches.range(0, N);
    Augmentation flip = of("flip", data);
    try (NDManager m = NDManager.newBaseManager()) {
      float[] x = flip.inputs(m, data, rows, 2).toFloatArray();
      float[] plain = data.floats(rows);
      for (int i = 0; i < N; i++) {
        boolean mirrored = flip.mirrors(2, i);
        for (int c = 0; c < 3; c++) {
          for (int r = 0; r < SIDE; r++) {
            for (int col = 0; col < SIDE; col++) {
              int from = (i * 3 + c) * PLANE + r * SIDE + (mirrored ? SIDE - 1 - col : col);
              assertEquals(plain[from], x[(i * 3 + c) * PLANE + r * SIDE + col], 0f);
            }
          }
        }
      }
    }
  }
}
