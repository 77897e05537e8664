package dev.keel.gpu.collective;

import dev.keel.gpu.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link CollectiveProbeMain} ranks as child JVMs ({@link ChildJvm}), each with its own log. Rank 0 is started first and picks the store's port; the others are given it.
 */
final class Ranks implements AutoCloseable {
  private final Path dir;
  private final List<ChildJvm> processes = new ArrayList<>();
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
    List<String> args = new ArrayList<>(List.of(scenario, Integer.toString(rank), Integer.toString(size),
        Integer.toString(port), Long.toString(timeoutMillis)));
    args.addAll(List.of(extra));
    processes.add(ChildJvm.start(dir.resolve(scenario + "-rank" + rank + ".log"), "256m", Map.of(),
        CollectiveProbeMain.class, args));
  }

  Process process(int rank) {
    return processes.get(rank).process();
  }

  String output(int rank) {
    return processes.get(rank).output();
  }

  /** The first line of rank's output starting with {@code prefix}, waiting for it. */
  String awaitLine(int rank, String prefix, long timeoutMillis) throws Exception {
    return processes.get(rank).awaitLine(prefix, timeoutMillis);
  }

  /** Waits for rank to exit and returns its exit code; fails if it does not exit in time. */
  int awaitExit(int rank, long timeoutMillis) throws Exception {
    return processes.get(rank).awaitExit(timeoutMillis);
  }

  @Override
  public void close() {
    processes.forEach(p -> p.process().destroyForcibly());
  }
}
