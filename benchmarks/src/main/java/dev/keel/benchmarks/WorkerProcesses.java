package dev.keel.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Workers as child JVMs ({@code keel worker --roles TRAIN}, or {@code INFER}), one per process
 * because DJL allows one active gradient collector per JVM and Keel's trainer serializes runs per
 * JVM.
 */
final class WorkerProcesses implements AutoCloseable {
  private final List<Process> processes = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();

  /**
   * Training workers {@code worker-1 … worker-<count>}.
   *
   * @param address the Temporal frontend
   * @param storage the storage root every worker shares
   */
  static WorkerProcesses start(int count, int threads, String address, String storage, Path logDir)
      throws IOException {
    return start("TRAIN", "worker-", count, threads, address, storage, logDir);
  }

  /** Workers of {@code roles} named {@code <prefix>1 … <prefix><count>} (their logs' names). */
  static WorkerProcesses start(
      String roles,
      String prefix,
      int count,
      int threads,
      String address,
      String storage,
      Path logDir)
      throws IOException {
    Files.createDirectories(logDir);
    WorkerProcesses w = new WorkerProcesses();
    Runtime.getRuntime().addShutdownHook(new Thread(w::close));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int i = 1; i <= count; i++) {
      Path log = logDir.resolve(prefix + i + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  java,
                  "-Xmx1g",
                  "-cp",
                  classpath(),
                  "dev.keel.service.cli.KeelCli",
                  "worker",
                  "--roles",
                  roles,
                  "--train-threads",
                  Integer.toString(threads),
                  "--temporal",
                  address,
                  "--storage",
                  storage)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().put("OMP_WAIT_POLICY", "passive");
      pb.environment().put("OMP_NUM_THREADS", Integer.toString(threads));
      pb.environment().put("KEEL_LOG_LEVEL", "INFO");
      pb.environment().remove("TEMPORAL_ADDRESS");
      w.processes.add(pb.start());
      w.logs.add(log);
    }
    return w;
  }

  /** Waits until every worker logged that it polls (or one died). */
  void awaitPolling(long timeoutMillis) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    for (int i = 0; i < processes.size(); i++) {
      while (!Files.exists(logs.get(i)) || !Files.readString(logs.get(i)).contains("polling")) {
        if (!processes.get(i).isAlive()) {
          throw new IllegalStateException(
              "worker " + (i + 1) + " exited: " + Files.readString(logs.get(i)));
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              "worker "
                  + (i + 1)
                  + " is not polling after "
                  + timeoutMillis
                  + " ms: "
                  + logs.get(i));
        }
        Thread.sleep(200);
      }
    }
  }

  /**
   * This JVM's classpath: {@code java.class.path}, or the URLs of the context class loader when run
   * by {@code exec:java} (whose {@code java.class.path} is Maven's own).
   */
  static String classpath() {
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    if (cl instanceof URLClassLoader u
        && u.getURLs().length > 0
        && Stream.of(u.getURLs()).anyMatch(url -> url.toString().contains("keel"))) {
      return Stream.of(u.getURLs())
          .map(WorkerProcesses::path)
          .collect(Collectors.joining(File.pathSeparator));
    }
    return System.getProperty("java.class.path");
  }

  private static String path(URL url) {
    try {
      return Paths.get(url.toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(url.toString(), e);
    }
  }

  @Override
  public synchronized void close() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    processes.clear();
  }
}
