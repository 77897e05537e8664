package dev.keel.gpu.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
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
 * A main class of the test classpath in its own JVM (a rank is a process). Its output is read as it
 * comes: kept for {@link #awaitOutput}, which blocks until it matches, and copied to a log file.
 *
 * <p>Starting a JVM and loading libtorch takes seconds on an idle machine and far longer on a busy
 * one, so a child whose work runs against a clock (a rendezvous timeout) first says it is ready and
 * waits to be told to go: the child calls {@link #readyThenAwaitGo} once it has loaded what it
 * needs, the test {@link #awaitReady} on every child, then {@link #go} on each. The clocks start
 * after that, when every process is up, however long the machine took to start them.
 */
public final class ChildJvm {
  /** The line a child prints when it is ready ({@link #readyThenAwaitGo}). */
  public static final String READY = "READY";

  /** How long a child may take to get ready: a bound on a hang, not a window any work runs in. */
  public static final long READY_BOUND_MS = TimeUnit.MINUTES.toMillis(5);

  private final Process process;
  private final StringBuilder output = new StringBuilder();
  private final Thread reader;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.reader = new Thread(() -> read(log), "child-output-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * {@code java -Xmx… -cp <this classpath> main args…}, output (stdout and stderr) to {@code log}.
   */
  public static ChildJvm start(
      Path log, String maxHeap, Map<String, String> env, Class<?> main, List<String> args)
      throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap,
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
    cmd.addAll(args);
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    return new ChildJvm(pb.start(), log);
  }

  private void read(Path log) {
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
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

  /**
   * In the child: prints {@link #READY}, then blocks until the test sends the go line ({@link #go})
   * and returns it. Fails when the test went away without sending it.
   */
  public static String readyThenAwaitGo() throws IOException {
    System.out.println(READY);
    System.out.flush();
    String go =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    if (go == null) {
      throw new IOException("the test closed this process's input before telling it to go");
    }
    return go;
  }

  /** Waits until the child has printed {@link #READY} (see {@link #READY_BOUND_MS}). */
  public void awaitReady() throws InterruptedException {
    awaitLine(READY, READY_BOUND_MS);
  }

  /** Sends the child waiting in {@link #readyThenAwaitGo} its go line. */
  public void go(String line) throws IOException {
    Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    in.write(line + "\n");
    in.flush();
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
  public String awaitOutput(Predicate<String> condition, long timeoutMillis)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    synchronized (output) {
      while (!condition.test(output.toString())) {
        long left = deadline - System.nanoTime();
        assertTrue(
            reader.isAlive(),
            "the process ended (" + exit() + ") before its output matched:\n" + output);
        assertTrue(
            left > 0, "the output did not match within " + timeoutMillis + " ms:\n" + output);
        TimeUnit.NANOSECONDS.timedWait(output, left);
      }
      return output.toString();
    }
  }

  /** The first line starting with {@code prefix}, waiting for it. */
  public String awaitLine(String prefix, long timeoutMillis) throws InterruptedException {
    return awaitOutput(out -> out.lines().anyMatch(l -> l.startsWith(prefix)), timeoutMillis)
        .lines()
        .filter(l -> l.startsWith(prefix))
        .findFirst()
        .orElseThrow();
  }

  /** Waits for the exit and for the last of the output; fails if it does not exit in time. */
  public int awaitExit(long timeoutMillis) throws InterruptedException {
    assertTrue(
        process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS),
        "still runs after " + timeoutMillis + " ms (hung?):\n" + output());
    reader.join(TimeUnit.SECONDS.toMillis(30));
    return process.exitValue();
  }

  private String exit() {
    return process.isAlive() ? "running" : "exit " + process.exitValue();
  }
}
