package dev.keel.gpu.check;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.gpu.torch.PyTorchFixtures;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU check's DJL training, on the CPU with DJL's own libtorch: the code path a GPU host runs
 * with {@code gpu(0)}, on a TorchScript MLP of the width gpu-check.sh writes.
 */
class DjlTrainCheckLowersTheLossOfATorchScriptModelTest {
  @Test
  void fiveStepsLowerTheLoss(@TempDir Path dir) throws Exception {
    Path model = PyTorchFixtures.mlp(dir, DjlTrainCheck.FEATURES, 4, 16, 3);

    String what = DjlTrainCheck.train(model, false, 5);

    assertTrue(what.startsWith("5 steps on cpu"), what);
  }
}
