package dev.keel.service.pool;

import dev.keel.api.v1.PoolInstances;
import dev.keel.api.v1.TofuApply;
import dev.keel.workflows.pool.PoolDurations;
import dev.keel.workflows.pool.PoolSpecs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A pool whose desired count a tofu (or terraform) configuration owns: {@code tofu apply
 * -auto-approve -input=false -var <var_name>=N} in the working directory (initialised first when it
 * has no {@code .terraform}), stopped after the timeout, tofu's own error text as the reason when
 * it fails. Instances are read and protected through the Auto Scaling group the configuration
 * manages.
 */
public final class TofuApplyActuator implements PoolActuator {
  /** How much of tofu's error text a reason carries. */
  private static final int REASON_CHARS = 1500;

  private final TofuApply spec;
  private final PoolActuator instances;
  private final Map<String, String> environment;
  private final Duration timeout;

  /**
   * @param spec with its defaults ({@link PoolSpecs#withDefaults})
   * @param instances reads and protects the group's instances
   * @param environment added to the worker's own for every tofu run (e.g. {@code
   *     TF_CLI_CONFIG_FILE})
   */
  public TofuApplyActuator(
      TofuApply spec, PoolActuator instances, Map<String, String> environment) {
    this.spec = spec;
    this.instances = instances;
    this.environment = Map.copyOf(environment);
    this.timeout = Duration.ofMillis(PoolSpecs.millis(spec.getTimeout()));
  }

  @Override
  public PoolInstances describe() {
    return instances.describe();
  }

  @Override
  public void protect(List<String> instanceIds, boolean protectedFromScaleIn) {
    instances.protect(instanceIds, protectedFromScaleIn);
  }

  @Override
  public void setDesired(int desired) {
    Path dir = Path.of(spec.getWorkingDir());
    if (!Files.isDirectory(dir)) {
      throw new PoolProviderException(
          "tofu.working_dir " + dir + " is not a directory on this worker", false, null);
    }
    if (!Files.isDirectory(dir.resolve(".terraform"))) {
      run(dir, List.of("init", "-input=false", "-no-color"));
    }
    List<String> apply =
        new ArrayList<>(
            List.of(
                "apply",
                "-auto-approve",
                "-input=false",
                "-no-color",
                "-lock-timeout=60s",
                "-var",
                spec.getVarName() + "=" + desired));
    spec.getVarFilesList().forEach(file -> apply.add("-var-file=" + file));
    new TreeMap<>(spec.getExtraVarsMap())
        .forEach((name, value) -> apply.addAll(List.of("-var", name + "=" + value)));
    run(dir, apply);
  }

  @Override
  public void close() {
    instances.close();
  }

  private void run(Path dir, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(spec.getBinary());
    command.addAll(args);
    String shown =
        spec.getBinary()
            + " "
            + args.stream()
                .filter(
                    a ->
                        !a.startsWith("-no-color")
                            && !a.startsWith("-input")
                            && !a.startsWith("-lock-timeout")
                            && !a.equals("-auto-approve"))
                .collect(Collectors.joining(" "))
            + " in "
            + dir;
    Path log;
    Process process;
    try {
      log = Files.createTempFile("keel-tofu", ".log");
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().putAll(environment);
      pb.environment().put("TF_IN_AUTOMATION", "1");
      pb.environment().put("TF_INPUT", "0");
      process = pb.start();
    } catch (IOException e) {
      throw new PoolProviderException("cannot run " + shown + ": " + e.getMessage(), false, e);
    }
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        stop(process);
        throw new PoolProviderException(
            shown
                + " did not finish within "
                + PoolDurations.format(timeout.toMillis())
                + " (tofu.timeout) and was stopped; its state may still be locked. Its output ends: "
                + tail(read(log)),
            false,
            null);
      }
      int exit = process.exitValue();
      if (exit != 0) {
        throw new PoolProviderException(
            shown + " failed (exit " + exit + "): " + errorText(read(log)), false, null);
      }
    } catch (InterruptedException e) {
      stop(process);
      Thread.currentThread().interrupt();
      throw new PoolProviderException(shown + " was interrupted and stopped", true, e);
    } finally {
      try {
        Files.deleteIfExists(log);
      } catch (IOException ignored) {
        // a temp file
      }
    }
  }

  private static void stop(Process process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(its output could not be read: " + e.getMessage() + ")";
    }
  }

  /**
   * Tofu's diagnostics from the first {@code Error:} on, as one line; else the end of the output.
   */
  static String errorText(String output) {
    int at = output.indexOf("Error: ");
    if (at < 0) {
      return tail(output);
    }
    String text =
        output
            .substring(at)
            .lines()
            .map(l -> l.replaceFirst("^[\\s│╷╵]+", "").strip())
            .filter(l -> !l.isEmpty())
            .collect(Collectors.joining(" "));
    return text.length() <= REASON_CHARS ? text : text.substring(0, REASON_CHARS) + " …";
  }

  private static String tail(String output) {
    String oneLine =
        output
            .lines()
            .map(String::strip)
            .filter(l -> !l.isEmpty())
            .collect(Collectors.joining(" "));
    return oneLine.length() <= REASON_CHARS
        ? oneLine
        : "… " + oneLine.substring(oneLine.length() - REASON_CHARS);
  }
}
