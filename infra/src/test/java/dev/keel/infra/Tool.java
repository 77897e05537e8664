package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command-line tool (tofu, tflint, checkov) in a directory and keeps what it printed. The
 * environment is this process's without AWS settings (the tests name their fake AWS explicitly)
 * plus {@code env}.
 */
final class Tool {
  private final Path executable;
  private final Path dir;
  private final Map<String, String> env;

  Tool(Path executable, Path dir, Map<String, String> env) {
    this.executable = executable;
    this.dir = dir;
    this.env = env;
  }

  /** OpenTofu in {@code dir}, with the provider mirror's CLI config and no prompts. */
  static Tool tofu(Path dir) {
    return new Tool(
        InfraTools.tofu(),
        dir,
        Map.of(
            "TF_CLI_CONFIG_FILE", InfraTools.cliConfig().toString(),
            "TF_IN_AUTOMATION", "1",
            "TF_INPUT", "0",
            "CHECKPOINT_DISABLE", "1"));
  }

  record Result(List<String> command, int exitCode, String output) {
    /** Fails with the command and everything it printed unless it exited with {@code expected}. */
    Result expectExit(int expected) {
      assertEquals(
          expected,
          exitCode,
          () -> String.join(" ", command) + " exited " + exitCode + ":\n" + output);
      return this;
    }

    Result ok() {
      return expectExit(0);
    }

    /**
     * The output with every run of white space one blank: tofu wraps its messages at 80 columns.
     */
    String oneLine() {
      return output.replace("│", " ").replaceAll("\\s+", " ");
    }
  }

  Result run(String... args) {
    List<String> command = new ArrayList<>();
    command.add(executable.toString());
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("TF_"));
    pb.environment().putAll(env);
    try {
      Path log = Files.createTempFile("keel-tool-", ".log");
      pb.redirectOutput(log.toFile());
      Process p = pb.start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " did not finish in 5 minutes:\n" + Files.readString(log));
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      Files.delete(log);
      return new Result(command, p.exitValue(), output);
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command, e);
    }
  }
}
