package dev.keel.gpu.collective;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link CollectiveProbeMain} ranks as child JVMs with this JVM's classpath, each writing to its own
 * log. Rank 0 is started first and picks the store's port; the others are given it.
 */
final class Ranks implements AutoCloseable {
  private final Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();
  private int port;

  Ranks(Path dir) {
    this.dir = dir;
  }

  /** Starts rank 0, waits for its store port, then starts ranks {@code 1..started-1}. */
  Ranks start(String scenario, int size, int started, long timeoutMillis, String... extra) throws Exception {
    start(scenario, 0, size, 0, timeoutMillis, extra);
    port = Integer.parseInt(awaitLine(0, "PORT ", 60_000).substring(5).trim());
    for (int r = 1; r < started; r++) {
      start(scenario, r, size, port, timeoutMillis, extra);
    }
    return this;
  }

  private void start(String scenario, int rank, int size, int port, long timeoutMillis, String... extra)
      throws IOException {
    List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        CollectiveProbeMain.class.getName(), scenario, Integer.toString(rank), Integer.toString(size),
        Integer.toString(port), Long.toString(timeoutMillis)));
    cmd.addAll(List.of(extra));
    Path log = dir.resolve(scenario + "-rank" + rank + ".log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(p);
    logs.add(log);
  }

  private static String java() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  Process process(int rank) {
    return processes.get(rank);
  }

  String output(int rank) throws IOException {
    Path log = logs.get(rank);
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  /** The first line of rank's output starting with {@code prefix}, waiting for it. */
  String awaitLine(int rank, String prefix, long timeoutMillis) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (true) {
      String line = output(rank).lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
      if (line != null) {
        return line;
      }
      if (!processes.get(rank).isAlive()) {
        throw new AssertionError("rank " + rank + " exited (" + processes.get(rank).exitValue() + ") before printing "
            + prefix + ":\n" + output(rank));
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("rank " + rank + " printed no " + prefix + " within " + timeoutMillis + " ms:\n"
            + output(rank));
      }
      Thread.sleep(50);
    }
  }

  /** Waits for rank to exit and returns its exit code; fails if it does not exit in time. */
  int awaitExit(int rank, long timeoutMillis) throws Exception {
    Process p = processes.get(rank);
    if (!p.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
      throw new AssertionError("rank " + rank + " still runs after " + timeoutMillis + " ms (hung?):\n" + output(rank));
    }
    return p.exitValue();
  }

  @Override
  public void close() {
    processes.forEach(Process::destroyForcibly);
  }
}
