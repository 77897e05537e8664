package dev.keel.gpu.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.keel.gpu.device.DeviceDiscovery;
import dev.keel.gpu.device.DeviceInventory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU host check on a machine without a GPU (every build machine of this project): one line per
 * check, each "not run" with what is missing, and exit code 0, since nothing failed. The arguments
 * are those gpu-check.sh passes on a host whose PyTorch is newer than DJL's.
 */
class GpuCheckWithoutAGpuSaysWhyEachCheckDidNotRunTest {
  @Test
  void everyCheckSaysItDidNotRunAndWhy() {
    DeviceDiscovery here = DeviceInventory.forEnvironment(System.getenv()).discover();
    assumeFalse(here.onGpu(), "this machine has a GPU: the checks run instead");

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      code =
          GpuCheck.run(
              new String[] {"--native-library-absent", "no nvcc", "--host-torch", "2.11.0+cu130"},
              out);
    }
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

    assertEquals(0, code, String.join("\n", lines));
    assertEquals(3, lines.size(), String.join("\n", lines));
    String reason = here.cpuReason();
    assertEquals(GpuCheck.CUDA_DEVICES + ": not run: " + reason, lines.get(0));
    assertEquals(GpuCheck.NCCL_ALLREDUCE + ": not run: no GPU (" + reason + ")", lines.get(1));
    assertEquals(GpuCheck.DJL_TRAIN + ": not run: no GPU (" + reason + ")", lines.get(2));
    // the build machines have no driver at all; a driver without a device says so instead
    assertTrue(reason.startsWith("no CUDA driver") || reason.startsWith("no CUDA device"), reason);
  }

  /**
   * gpu-check.sh itself, with this JVM and class path in place of the kit's runtime and jars, and a
   * python3 that does not exist: it still prints the three lines.
   */
  @Test
  void theScriptPrintsTheSameThreeLines(@TempDir Path work) throws Exception {
    DeviceDiscovery here = DeviceInventory.forEnvironment(System.getenv()).discover();
    assumeFalse(here.onGpu(), "this machine has a GPU: the checks run instead");

    ProcessBuilder pb =
        new ProcessBuilder("bash", Path.of("gpu-check", "gpu-check.sh").toString())
            .redirectErrorStream(true);
    pb.environment()
        .put("KEEL_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    pb.environment().put("KEEL_GPU_CHECK_CLASSPATH", System.getProperty("java.class.path"));
    pb.environment().put("KEEL_GPU_CHECK_WORK", work.toString());
    pb.environment().put("PYTHON", work.resolve("no-python3").toString());
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(2, TimeUnit.MINUTES), output);

    List<String> lines =
        output.lines().filter(l -> l.matches("^[a-z-]+: (ok|not run|FAILED): .*")).toList();
    assertEquals(0, p.exitValue(), output);
    assertEquals(3, lines.size(), output);
    String reason = here.cpuReason();
    assertEquals(GpuCheck.CUDA_DEVICES + ": not run: " + reason, lines.get(0), output);
    assertEquals(GpuCheck.NCCL_ALLREDUCE + ": not run: no GPU (" + reason + ")", lines.get(1));
    assertEquals(GpuCheck.DJL_TRAIN + ": not run: no GPU (" + reason + ")", lines.get(2));
  }
}
