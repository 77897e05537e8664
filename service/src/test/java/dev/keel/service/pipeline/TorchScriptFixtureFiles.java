package dev.keel.service.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Model files written by stock PyTorch for the service's tests: runs gpu-workers' {@code
 * src/test/python/keel_torch_fixtures.py} with the venv {@code .tools/torchenv} (made by {@code
 * ./mvnw -pl gpu-workers -am process-test-classes}). A missing venv fails the test rather than
 * skipping it.
 */
public final class TorchScriptFixtureFiles {
  private static final long TIMEOUT_S = 120;

  private TorchScriptFixtureFiles() {}

  /** A scripted Linear, ReLU, Linear taking {@code features} and returning {@code classes}. */
  public static Path mlp(Path out, int features, int classes, int hidden) throws IOException {
    run(
        "mlp",
        "--features",
        Integer.toString(features),
        "--classes",
        Integer.toString(classes),
        "--hidden",
        Integer.toString(hidden),
        "--out",
        out.toString());
    return out;
  }

  /** An mlp's {@code torch.save(state_dict)}: a pickle of tensors, not TorchScript. */
  public static Path stateDict(Path out, int features, int classes) throws IOException {
    run(
        "state-dict",
        "--features",
        Integer.toString(features),
        "--classes",
        Integer.toString(classes),
        "--out",
        out.toString());
    return out;
  }

  /** A small CNN for {@code channels x size x size} images, without batch norm. */
  public static Path cnn(Path out, int channels, int size, int classes, int width)
      throws IOException {
    run(
        "cnn",
        "--channels",
        Integer.toString(channels),
        "--size",
        Integer.toString(size),
        "--classes",
        Integer.toString(classes),
        "--width",
        Integer.toString(width),
        "--out",
        out.toString());
    return out;
  }

  /**
   * What {@code examples/pytorch/export_models.py} writes into {@code dir}: {@code cnn-w8.pt},
   * {@code cnn-w16.pt}, {@code mlp-h32.pt}, {@code mlp-h64.pt}.
   */
  public static Path exampleModels(Path dir) throws IOException {
    python(
        repoRoot().resolve("examples/pytorch/export_models.py").toString(),
        "--out",
        dir.toString());
    return dir;
  }

  public static Path repoRoot() {
    String home = System.getProperty("keel.home");
    if (home != null && !home.isBlank()) {
      return Path.of(home).toAbsolutePath().normalize();
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("mvnw"))) {
        return dir;
      }
    }
    throw new AssertionError("no directory containing mvnw above " + Path.of("").toAbsolutePath());
  }

  private static void run(String... args) throws IOException {
    Files.createDirectories(Path.of(args[args.length - 1]).toAbsolutePath().getParent());
    List<String> all =
        new ArrayList<>(
            List.of(
                repoRoot()
                    .resolve("gpu-workers/src/test/python/keel_torch_fixtures.py")
                    .toString()));
    all.addAll(List.of(args));
    python(all.toArray(String[]::new));
  }

  /**
   * Runs the venv's python with {@code args} and returns what it printed.
   *
   * @throws AssertionError when the venv is missing, the run fails or outlasts its timeout
   */
  public static String python(String... args) throws IOException {
    Path python = repoRoot().resolve(".tools/torchenv/bin/python");
    if (!Files.isExecutable(python)) {
      throw new AssertionError(
          python
              + " is missing; it is made by ./mvnw -pl gpu-workers -am process-test-classes"
              + " (gpu-workers/python/torch-venv.sh)");
    }
    List<String> cmd = new ArrayList<>(List.of(python.toString()));
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile("keel-torch-fixtures-", ".log");
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("still running after " + TIMEOUT_S + " s: " + cmd);
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(
            "exit " + p.exitValue() + ": " + cmd + "\n" + Files.readString(log));
      }
      return Files.readString(log);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + cmd, e);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
