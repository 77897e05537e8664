package dev.keel.gpu.check;

import dev.keel.gpu.collective.NativeCollectives;
import dev.keel.gpu.collective.NcclProcessGroup;
import dev.keel.gpu.collective.Store;
import dev.keel.gpu.device.DeviceDiscovery;
import dev.keel.gpu.device.DeviceInventory;
import dev.keel.gpu.device.GpuDevice;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Three checks of a CUDA host, one line each: the devices JCuda finds ({@code cuda-devices}), a
 * one-rank c10d ProcessGroupNCCL allreduce through Keel's JNI library built on the host against its
 * own PyTorch ({@code nccl-allreduce}), and a few DJL training steps of a TorchScript model on the
 * GPU ({@code djl-train}). Each line is {@code <check>: ok: <what>}, {@code <check>: not run:
 * <why>} or {@code <check>: FAILED: <why>}. The exit code is 1 when a check failed, else 0 (also
 * when nothing could run: the lines say why).
 *
 * <p>Arguments, all optional (gpu-check.sh passes what it found):
 *
 * <ul>
 *   <li>{@code --native-library FILE}: Keel's store+NCCL library built on this host; {@code
 *       --native-library-absent WHY} when it could not be built
 *   <li>{@code --host-torch VERSION} and {@code --host-torch-lib DIR}: the host's PyTorch; {@code
 *       --host-torch-absent WHY} when python3 has none
 *   <li>{@code --torchscript FILE}: a TorchScript model taking {@value DjlTrainCheck#FEATURES}
 *       features, for the DJL check
 * </ul>
 */
public final class GpuCheck {
  static final String CUDA_DEVICES = "cuda-devices";
  static final String NCCL_ALLREDUCE = "nccl-allreduce";
  static final String DJL_TRAIN = "djl-train";

  /** 4 MiB of floats: large enough for NCCL's ring to split it, small enough to stay exact. */
  static final long ALLREDUCE_ELEMENTS = 1L << 20;

  private GpuCheck() {}

  /** One check's outcome. */
  record Outcome(String status, String detail) {
    static Outcome ok(String detail) {
      return new Outcome("ok", detail);
    }

    static Outcome notRun(String why) {
      return new Outcome("not run", why);
    }

    static Outcome failed(String why) {
      return new Outcome("FAILED", why);
    }

    String line(String check) {
      return check + ": " + status + ": " + oneLine(detail);
    }
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out));
  }

  /** Runs the checks, prints their lines to {@code out}, and returns the exit code. */
  public static int run(String[] args, PrintStream out) {
    Map<String, String> options = parse(args);
    DeviceDiscovery found = DeviceInventory.forEnvironment(System.getenv()).discover();

    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    outcomes.put(CUDA_DEVICES, devices(found));
    outcomes.put(NCCL_ALLREDUCE, guard(() -> nccl(found, options)));
    outcomes.put(DJL_TRAIN, guard(() -> djl(found, options)));

    boolean failed = false;
    for (Map.Entry<String, Outcome> e : outcomes.entrySet()) {
      out.println(e.getValue().line(e.getKey()));
      failed |= e.getValue().status().equals("FAILED");
    }
    out.flush();
    return failed ? 1 : 0;
  }

  private static Outcome devices(DeviceDiscovery found) {
    if (!found.onGpu()) {
      return Outcome.notRun(found.cpuReason());
    }
    return Outcome.ok(
        found.gpus().size()
            + " device(s), driver API "
            + found.driverVersionText()
            + ": "
            + found.gpus().stream().map(GpuDevice::describe).collect(Collectors.joining("; ")));
  }

  static Outcome nccl(DeviceDiscovery found, Map<String, String> options) {
    if (!found.onGpu()) {
      return Outcome.notRun("no GPU (" + found.cpuReason() + ")");
    }
    String library = options.get("--native-library");
    if (library == null) {
      return Outcome.notRun(
          "Keel's JNI library was not built on this host ("
              + options.getOrDefault(
                  "--native-library-absent", "no --native-library given; run gpu-check.sh")
              + ")");
    }
    NativeCollectives.loadHostLibrary(Path.of(library));
    // One rank on one GPU: a host with one GPU can run it, and NCCL refuses two ranks on one
    // device.
    try (Store store = Store.server("127.0.0.1", 0, 1, Duration.ofSeconds(60));
        NcclProcessGroup group = NcclProcessGroup.create(store, 0, 1, Duration.ofSeconds(60))) {
      double error = group.checkAllreduce(ALLREDUCE_ELEMENTS);
      if (error != 0) {
        return Outcome.failed(
            "1 rank, " + ALLREDUCE_ELEMENTS + " floats on GPU 0: the sum is off by up to " + error);
      }
      return Outcome.ok("1 rank, " + ALLREDUCE_ELEMENTS + " floats on GPU 0, sum exact");
    }
  }

  static Outcome djl(DeviceDiscovery found, Map<String, String> options) throws Exception {
    if (!found.onGpu()) {
      return Outcome.notRun("no GPU (" + found.cpuReason() + ")");
    }
    Properties engine = djlEngineProperties();
    if (engine == null) {
      return Outcome.notRun("DJL's PyTorch engine is not on the class path");
    }
    String djl = engine.getProperty("djl_version", "?");
    String needs = engine.getProperty("pytorch_version", "?");
    String host = options.get("--host-torch");
    if (host == null) {
      return Outcome.notRun(
          "DJL "
              + djl
              + " needs libtorch "
              + needs
              + ", and the host has no PyTorch ("
              + options.getOrDefault("--host-torch-absent", "no --host-torch given")
              + ")");
    }
    String hostVersion = host.replaceFirst("\\+.*$", "");
    if (!hostVersion.equals(needs)) {
      return Outcome.notRun(
          "DJL " + djl + " needs libtorch " + needs + ", the host has " + hostVersion);
    }
    String model = options.get("--torchscript");
    String lib = options.get("--host-torch-lib");
    if (model == null || lib == null) {
      return Outcome.notRun("no --torchscript model or --host-torch-lib given; run gpu-check.sh");
    }
    // DJL reads these once, when its engine starts: the host's CUDA libtorch, not a download.
    setIfAbsent("PYTORCH_LIBRARY_PATH", lib);
    setIfAbsent("PYTORCH_VERSION", needs);
    setIfAbsent("PYTORCH_FLAVOR", "cu128");
    return Outcome.ok(DjlTrainCheck.train(Path.of(model), true, 5));
  }

  private static void setIfAbsent(String name, String value) {
    if (System.getenv(name) == null && System.getProperty(name) == null) {
      System.setProperty(name, value);
    }
  }

  private static Properties djlEngineProperties() throws IOException {
    try (InputStream in = GpuCheck.class.getResourceAsStream("/pytorch-engine.properties")) {
      if (in == null) {
        return null;
      }
      Properties p = new Properties();
      p.load(in);
      return p;
    }
  }

  private interface Check {
    Outcome run() throws Exception;
  }

  /** Whatever a check throws (a native library's link error included) is its failure line. */
  private static Outcome guard(Check check) {
    try {
      return check.run();
    } catch (Exception | LinkageError e) {
      return Outcome.failed(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  static Map<String, String> parse(String[] args) {
    List<String> known =
        List.of(
            "--native-library",
            "--native-library-absent",
            "--host-torch",
            "--host-torch-lib",
            "--host-torch-absent",
            "--torchscript");
    Map<String, String> options = new LinkedHashMap<>();
    List<String> unknown = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (known.contains(args[i]) && i + 1 < args.length) {
        options.put(args[i], args[++i]);
      } else {
        unknown.add(args[i]);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown or incomplete arguments "
              + unknown
              + "; known: "
              + known
              + " (each with a value)");
    }
    return options;
  }

  static String oneLine(String text) {
    if (text == null || text.isBlank()) {
      return "no message";
    }
    String s = text.replaceAll("\\s*\\R\\s*", " ").strip();
    return s.length() > 400 ? s.substring(0, 400) + "…" : s;
  }
}
