package dev.keel.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * CUDA discovery on the machine the tests run on, through the real JCuda: without a CUDA driver
 * (the build machines) it answers "CPU" with one line saying why and prints nothing; JCuda is
 * loaded only when a discovery is asked for. On a GPU host, {@code -Dkeel.test.groups=gpu} runs the
 * test that every device is found (tagged {@code gpu}, left out of every other build) (see
 * docs/operations.md, "Running on a GPU host").
 */
class DeviceDiscoveryWithoutAGpuFallsBackToTheCpuInOneLineTest {

  @Test
  void withoutACudaDriverTheDiscoveryIsTheCpuWithTheReasonInOneLine() throws Exception {
    assumeFalse(cudaDriverInstalled(), "this machine has a CUDA driver");
    // A class loader of its own, so the discovery really runs here whatever ran before in this JVM.
    try (Isolated loader = Isolated.withJCuda(true)) {
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      PrintStream out = System.out;
      PrintStream err = System.err;
      Object discovery;
      try (PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
        System.setOut(capture);
        System.setErr(capture);
        discovery = loader.discover();
      } finally {
        System.setOut(out);
        System.setErr(err);
      }
      assertEquals(List.of(), discovery.getClass().getMethod("gpus").invoke(discovery));
      assertEquals(
          "no CUDA driver (libcuda.so.1 not found)",
          discovery.getClass().getMethod("cpuReason").invoke(discovery));
      assertEquals("", printed.toString(StandardCharsets.UTF_8), "the discovery printed something");
    }

    DeviceDiscovery here = DeviceInventory.forEnvironment(Map.of()).discover();
    String line = SlotAssignment.summary(here, SlotAssignment.defaultSlots(here));
    assertEquals("no CUDA driver (libcuda.so.1 not found): training on CPU, 1 slot(s)", line);
    assertEquals(1, line.lines().count());
  }

  @Test
  void jcudaIsLoadedOnlyWhenADiscoveryIsAskedFor() throws Exception {
    try (Isolated loader = Isolated.withJCuda(true)) {
      Object inventory = loader.inventory();
      assertFalse(
          loader.hasLoaded("jcuda.driver.JCudaDriver"), "creating the inventory loaded JCuda");
      inventory.getClass().getMethod("discover").invoke(inventory);
      assertTrue(loader.hasLoaded("jcuda.driver.JCudaDriver"), "the discovery did not ask JCuda");
    }
  }

  @Test
  void withoutJCudaOnTheClasspathTheReasonSaysSo() throws Exception {
    try (Isolated loader = Isolated.withJCuda(false)) {
      Object discovery = loader.discover();
      String reason = (String) discovery.getClass().getMethod("cpuReason").invoke(discovery);
      assertTrue(reason.startsWith("JCuda is not on the classpath"), reason);
      assertFalse(reason.contains("\n"), reason);
    }
  }

  @Test
  void anEmptyCudaVisibleDevicesMeansTheCpuWithoutAskingTheDriver() {
    DeviceDiscovery d =
        DeviceInventory.forEnvironment(Map.of("CUDA_VISIBLE_DEVICES", "")).discover();
    assertEquals("CUDA_VISIBLE_DEVICES is empty", d.cpuReason());
    assertTrue(
        DeviceInventory.forEnvironment(Map.of("CUDA_VISIBLE_DEVICES", " "))
            instanceof CpuDeviceInventory);
  }

  @Test
  void jcudaLoadFailuresBecomeOneLineReasons() {
    // JCuda's own wording, nested stack traces included, for the failures a machine can have.
    String header =
        "Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\"\nOperating system name: Linux\n"
            + "---(start of nested stack traces)---\nStack trace from the attempt to load the library as a file:\n"
            + "java.lang.UnsatisfiedLinkError: no JCudaDriver-12.6.0-linux-x86_64 in java.library.path: /usr/lib\n"
            + "\tat java.base/java.lang.ClassLoader.loadLibrary(ClassLoader.java:2434)\n"
            + "Stack trace from the attempt to load the library as a resource:\n";
    assertEquals(
        "no CUDA driver (libcuda.so.1 not found)",
        CudaDeviceInventory.reasonForLinkError(
            new UnsatisfiedLinkError(
                header
                    + "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: cannot open "
                    + "shared object file: No such file or directory\n\tat java.base/jdk.internal.loader.NativeLibraries.load"
                    + "(Native Method)\n---(end of nested stack traces)---\n")));
    assertEquals(
        "no JCuda JNI library for "
            + platform()
            + " (/lib/libJCudaDriver-12.6.0-linux-aarch64.so is not on the "
            + "classpath; JCuda 12.6.0 ships linux-x86_64 and windows-x86_64)",
        CudaDeviceInventory.reasonForLinkError(
            new UnsatisfiedLinkError(
                header
                    + "java.io.IOException: No resource found "
                    + "with name '/lib/libJCudaDriver-12.6.0-linux-aarch64.so'\n---(end of nested stack traces)---\n")));
    assertEquals(
        "the CUDA driver is older than JCuda 12.6.0 needs (undefined symbol cuCtxCreate_v4)",
        CudaDeviceInventory.reasonForLinkError(
            new UnsatisfiedLinkError(
                header
                    + "java.lang.UnsatisfiedLinkError: "
                    + "/tmp/libJCudaDriver-12.6.0-linux-x86_64.so: undefined symbol: cuCtxCreate_v4\n")));
    String other =
        CudaDeviceInventory.reasonForLinkError(
            new UnsatisfiedLinkError(header + "something else\n"));
    assertEquals(
        "JCuda's JNI library did not load on "
            + platform()
            + " (Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\")",
        other);
  }

  /**
   * The test a GPU host runs with {@code -Dkeel.test.groups=gpu}: every device the driver has, with
   * sane values.
   */
  @Test
  @Tag("gpu")
  void onAGpuHostEveryDeviceIsFound() throws Exception {
    DeviceDiscovery d = new CudaDeviceInventory(System.getenv("CUDA_VISIBLE_DEVICES")).discover();
    assertTrue(d.onGpu(), "no GPU found: " + d.cpuReason());
    assertTrue(
        d.driverVersion() >= 12000,
        "CUDA driver API " + d.driverVersionText() + ": JCuda 12.6 needs 12.x");
    for (int i = 0; i < d.gpus().size(); i++) {
      GpuDevice g = d.gpus().get(i);
      assertEquals(i, g.ordinal());
      assertFalse(g.name().isBlank(), g.toString());
      assertTrue(g.totalMemoryBytes() > (256L << 20), g.toString());
      assertTrue(g.computeMajor() >= 3, g.toString());
      System.out.println(g.describe());
    }
    if (System.getenv("CUDA_VISIBLE_DEVICES") == null) {
      try {
        Process smi = new ProcessBuilder("nvidia-smi", "-L").redirectErrorStream(true).start();
        String listed = new String(smi.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (smi.waitFor() == 0) {
          assertEquals(
              listed.lines().filter(l -> l.startsWith("GPU ")).count(), d.gpus().size(), listed);
        }
      } catch (IOException noNvidiaSmi) {
        // the driver's own count above is the check then
      }
    }
    List<SlotDevice> slots =
        SlotAssignment.assign(d, SlotAssignment.defaultSlots(d), Optional.empty());
    assertEquals(d.gpus().size(), slots.size());
    System.out.println(SlotAssignment.summary(d, slots.size()));
  }

  private static String platform() {
    return System.getProperty("os.name").toLowerCase(Locale.ROOT)
        + "-"
        + System.getProperty("os.arch");
  }

  /** Where a Linux CUDA driver puts {@code libcuda.so.1}, and the dynamic loader's extra path. */
  static boolean cudaDriverInstalled() {
    List<String> dirs =
        new ArrayList<>(
            List.of(
                "/usr/lib/x86_64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu",
                "/usr/lib64",
                "/usr/lib",
                "/lib/x86_64-linux-gnu",
                "/lib64",
                "/usr/local/cuda/compat",
                "/usr/lib/wsl/lib"));
    String ld = System.getenv("LD_LIBRARY_PATH");
    if (ld != null) {
      dirs.addAll(Arrays.asList(ld.split(File.pathSeparator)));
    }
    return dirs.stream()
        .filter(d -> !d.isBlank())
        .anyMatch(d -> Files.exists(Path.of(d, "libcuda.so.1")));
  }

  /**
   * gpu-workers' main classes, and JCuda's jars or not, in a class loader whose parent is the
   * platform's: nothing the test JVM loaded before is visible in it.
   */
  static final class Isolated extends URLClassLoader {
    private Isolated(URL[] urls) {
      super(urls, ClassLoader.getPlatformClassLoader());
    }

    static Isolated withJCuda(boolean jcuda) throws Exception {
      List<URL> urls = new ArrayList<>();
      urls.add(CudaDeviceInventory.class.getProtectionDomain().getCodeSource().getLocation());
      if (jcuda) {
        List<String> jars =
            Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.replace(File.separatorChar, '/').contains("/org/jcuda/"))
                .toList();
        assertEquals(2, jars.size(), "jcuda and jcuda-natives on the test classpath: " + jars);
        for (String j : jars) {
          urls.add(Path.of(j).toUri().toURL());
        }
      }
      return new Isolated(urls.toArray(URL[]::new));
    }

    Object inventory() throws Exception {
      return loadClass(CudaDeviceInventory.class.getName())
          .getConstructor(String.class)
          .newInstance((Object) null);
    }

    Object discover() throws Exception {
      Object inventory = inventory();
      return inventory.getClass().getMethod("discover").invoke(inventory);
    }

    boolean hasLoaded(String name) {
      return findLoadedClass(name) != null;
    }
  }
}
