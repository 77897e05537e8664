package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.storage.testing.TestDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fixture script and its Java side agree: shapes, names, and a forward pass round trip. */
class PyTorchFixturesTest {
  @Test
  void anMlpIsExportedWithItsLayerNamesAndPredictsOneRowPerInputRow() throws Exception {
    Path dir = TestDirs.create("torch-mlp");
    Path model = PyTorchFixtures.mlp(dir, 4, 3, 8, 0);
    assertTrue(Files.size(model) > 0);

    String info = PyTorchFixtures.info(model);
    assertTrue(info.contains("\"fc1.weight\": [8, 4]"), info);
    assertTrue(info.contains("\"fc1.bias\": [8]"), info);
    assertTrue(info.contains("\"fc2.weight\": [3, 8]"), info);
    assertTrue(info.contains("\"buffers\": {}"), info);

    float[][] out = PyTorchFixtures.predict(model, rows(3, 4, 1), new long[] {4});
    assertOutputs(out, 3, 3);
    assertArrayEquals(
        out,
        PyTorchFixtures.predict(model, rows(3, 4, 1), new long[] {4}),
        "one model and one input give one output");
  }

  @Test
  void aCnnWithBatchNormIsExportedWithItsStatisticsAndPredictsOneRowPerImage() throws Exception {
    Path dir = TestDirs.create("torch-cnn");
    Path model = PyTorchFixtures.cnn(dir, 1, 8, 5, 4, 0, true);

    String info = PyTorchFixtures.info(model);
    assertTrue(info.contains("\"features.0.weight\": [4, 1, 3, 3]"), info);
    assertTrue(info.contains("\"features.1.running_mean\": [4]"), info);
    assertTrue(info.contains("\"features.4.weight\": [8, 4, 3, 3]"), info);
    assertTrue(info.contains("\"features.5.running_var\": [8]"), info);
    assertTrue(info.contains("\"head.weight\": [5, 8]"), info);

    assertOutputs(PyTorchFixtures.predict(model, rows(3, 64, 2), new long[] {1, 8, 8}), 3, 5);
  }

  @Test
  void aCnnWithoutBatchNormHasNoBuffers() throws Exception {
    Path model = PyTorchFixtures.cnn(TestDirs.create("torch-cnn"), 3, 6, 2, 2, 7, false);
    String info = PyTorchFixtures.info(model);
    assertTrue(info.contains("\"features.3.weight\": [4, 2, 3, 3]"), info);
    assertTrue(info.contains("\"buffers\": {}"), info);
    assertOutputs(PyTorchFixtures.predict(model, rows(3, 108, 3), new long[] {3, 6, 6}), 3, 2);
  }

  @Test
  void theSameSeedWritesTheSameWeights() throws Exception {
    Path model = PyTorchFixtures.mlp(TestDirs.create("torch-a"), 4, 2, 4, 5);
    Path again = PyTorchFixtures.mlp(TestDirs.create("torch-b"), 4, 2, 4, 5);
    Path other = PyTorchFixtures.mlp(TestDirs.create("torch-c"), 4, 2, 4, 6);
    float[][] input = rows(3, 4, 4);
    float[][] out = PyTorchFixtures.predict(model, input, new long[] {4});
    assertArrayEquals(out, PyTorchFixtures.predict(again, input, new long[] {4}));
    assertFalse(Arrays.deepEquals(out, PyTorchFixtures.predict(other, input, new long[] {4})));
  }

  @Test
  void aStateDictIsWrittenButIsNoTorchScriptFile() throws Exception {
    Path stateDict = PyTorchFixtures.stateDict(TestDirs.create("torch-sd"), 4, 3);
    assertTrue(Files.size(stateDict) > 0);
    AssertionError refused =
        assertThrows(AssertionError.class, () -> PyTorchFixtures.info(stateDict));
    assertTrue(refused.getMessage().contains("keel_torch_fixtures.py info"), refused.getMessage());
  }

  private static float[][] rows(int n, int width, long seed) {
    Random random = new Random(seed);
    float[][] rows = new float[n][width];
    for (float[] row : rows) {
      for (int j = 0; j < width; j++) {
        row[j] = (float) random.nextGaussian();
      }
    }
    return rows;
  }

  private static void assertOutputs(float[][] out, int rows, int width) {
    assertEquals(rows, out.length);
    for (float[] row : out) {
      assertEquals(width, row.length);
      for (float v : row) {
        assertTrue(Float.isFinite(v), Arrays.toString(row));
      }
    }
    for (int i = 1; i < out.length; i++) {
      assertFalse(
          Arrays.equals(out[0], out[i]),
          "rows 0 and " + i + " differ: " + Arrays.deepToString(out));
    }
  }
}
