package dev.keel.gpu.collective;

import dev.keel.gpu.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link CollectiveProbeMain} ranks as child JVMs ({@link ChildJvm}), each with its own log. Every
 * rank is started at once and says when it is ready (libtorch loaded); only then does rank 0 open
 * its store on a free port and the others join it, so the collective timeout counts the rendezvous,
 * not how long a busy machine took to start the JVMs.
 */
final class Ranks implements AutoCloseable {
  private final Path dir;
  private final List<ChildJvm> processes = new ArrayList<>();

  Ranks(Path dir) {
    this.dir = dir;
  }

  /**
   * Starts ranks {@code 0..started-1} of {@code size}, waits until each is ready, lets rank 0 open
   * its store and waits for its port, then lets the others join it.
   */
  Ranks start(String scenario, int size, int started, long timeoutMillis, String... extra)
      throws Exception {
    for (int r = 0; r < started; r++) {
      launch(scenario, r, size, timeoutMillis, extra);
    }
    for (ChildJvm rank : processes) {
      rank.awaitReady();
    }
    processes.get(0).go("0");
    String port = awaitLine(0, "PORT ", ChildJvm.READY_BOUND_MS).substring(5).trim();
    for (int r = 1; r < started; r++) {
      processes.get(r).go(port);
    }
    return this;
  }

  private void launch(String scenario, int rank, int size, long timeoutMillis, String... extra)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                scenario,
                Integer.toString(rank),
                Integer.toString(size),
                Long.toString(timeoutMillis)));
    args.addAll(List.of(extra));
    processes.add(
        ChildJvm.start(
            dir.resolve(scenario + "-rank" + rank + ".log"),
            "256m",
            Map.of(),
            CollectiveProbeMain.class,
            args));
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
