package dev.keel.gpu.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.gpu.device.DeviceDiscovery;
import dev.keel.gpu.device.GpuDevice;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the checks say on the GPU host this kit is for (one H200, PyTorch 2.11): DJL 0.35.1's JNI
 * library cannot load that libtorch, and a library that did not build is named with why. The
 * devices are made up: no build machine of this project has a GPU.
 */
class OnAGpuHostWithANewerPyTorchDjlTrainingIsNotRunAndSaysWhyTest {
  private static final DeviceDiscovery ONE_GPU =
      DeviceDiscovery.gpus(List.of(new GpuDevice(0, "Stand-in H200", 141L << 30, 9, 0)), 13000);

  @Test
  void djlTrainingNamesTheLibtorchItNeedsAndTheHostsVersion() throws Exception {
    GpuCheck.Outcome outcome = GpuCheck.djl(ONE_GPU, Map.of("--host-torch", "2.11.0+cu130"));
    assertEquals(
        "djl-train: not run: DJL 0.35.1 needs libtorch 2.7.1, the host has 2.11.0",
        outcome.line(GpuCheck.DJL_TRAIN));
  }

  @Test
  void withoutPyTorchDjlTrainingSaysSo() throws Exception {
    assertEquals(
        "djl-train: not run: DJL 0.35.1 needs libtorch 2.7.1, and the host has no PyTorch"
            + " (no PyTorch in python3)",
        GpuCheck.djl(ONE_GPU, Map.of("--host-torch-absent", "no PyTorch in python3"))
            .line(GpuCheck.DJL_TRAIN));
  }

  @Test
  void anUnbuiltLibraryIsNamedWithWhy() {
    assertEquals(
        "nccl-allreduce: not run: Keel's JNI library was not built on this host (no g++)",
        GpuCheck.nccl(ONE_GPU, Map.of("--native-library-absent", "no g++"))
            .line(GpuCheck.NCCL_ALLREDUCE));
  }
}
