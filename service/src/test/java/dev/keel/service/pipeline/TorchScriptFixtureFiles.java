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

  private static Path repoRoot() {
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
    Path root = repoRoot();
    Path python = root.resolve(".tools/torchenv/bin/python");
    if (!Files.isExecutable(python)) {
      throw new AssertionError(
          python
              + " is missing; it is made by ./mvnw -pl gpu-workers -am process-test-classes"
              + " (gpu-workers/python/torch-venv.sh)");
    }
    Files.createDirectories(Path.of(args[args.length - 1]).toAbsolutePath().getParent());
    List<String> cmd =
        new ArrayList<>(
            List.of(
                python.toString(),
                root.resolve("gpu-workers/src/test/python/keel_torch_fixtures.py").toString()));
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + cmd, e);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
