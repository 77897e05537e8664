package dev.keel.gpu.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A main class of the test classpath in its own JVM (a rank is a process). Its output is read as
 * it comes: kept for {@link #awaitOutput}, which blocks until it matches, and copied to a log file.
 */
public final class ChildJvm {
  private final Process process;
  private final StringBuilder output = new StringBuilder();
  private final Thread reader;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.reader = new Thread(() -> read(log), "child-output-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /** {@code java -Xmx… -cp <this classpath> main args…}, output (stdout and stderr) to {@code log}. */
  public static ChildJvm start(Path log, String maxHeap, Map<String, String> env, Class<?> main, List<String> args)
      throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + maxHeap, "-cp", System.getProperty("java.class.path"), main.getName()));
    cmd.addAll(args);
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    return new ChildJvm(pb.start(), log);
  }

  private void read(Path log) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer copy = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        copy.write(line + "\n");
        copy.flush();
        synchronized (output) {
          output.append(line).append('\n');
          output.notifyAll();
        }
      }
    } catch (IOException e) {
      // the process is gone; what was read stays
    } finally {
      synchronized (output) {
        output.notifyAll();
      }
    }
  }

  public Process process() {
    return process;
  }

  /** Everything printed so far. */
  public String output() {
    synchronized (output) {
      return output.toString();
    }
  }

  /**
   * Blocks until {@code condition} holds for the output so far, and returns that output; fails when
   * the process has ended without it, or after {@code timeoutMillis}.
   */
  public String awaitOutput(Predicate<String> condition, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    synchronized (output) {
      while (!condition.test(output.toString())) {
        long left = deadline - System.nanoTime();
        assertTrue(reader.isAlive(), "the process ended (" + exit() + ") before its output matched:\n" + output);
        assertTrue(left > 0, "the output did not match within " + timeoutMillis + " ms:\n" + output);
        TimeUnit.NANOSECONDS.timedWait(output, left);
      }
      return output.toString();
    }
  }

  /** The first line starting with {@code prefix}, waiting for it. */
  public String awaitLine(String prefix, long timeoutMillis) throws InterruptedException {
    return awaitOutput(out -> out.lines().anyMatch(l -> l.startsWith(prefix)), timeoutMillis).lines()
        .filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
  }

  /** Waits for the exit and for the last of the output; fails if it does not exit in time. */
  public int awaitExit(long timeoutMillis) throws InterruptedException {
    assertTrue(process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS),
        "still runs after " + timeoutMillis + " ms (hung?):\n" + output());
    reader.join(TimeUnit.SECONDS.toMillis(30));
    return process.exitValue();
  }

  private String exit() {
    return process.isAlive() ? "running" : "exit " + process.exitValue();
  }
}
