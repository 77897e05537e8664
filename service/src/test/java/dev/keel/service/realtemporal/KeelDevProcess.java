package dev.keel.service.realtemporal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar keel-service.jar dev --temporal cli} as its own process, the way a user runs
 * {@code ./keel dev}: start it, stop it, or {@code kill -9} it and start it again on the same
 * storage root and ports.
 */
final class KeelDevProcess {
  private final Path storage;
  private final int port;
  private final int uiPort;
  private final Path logDir;
  private Process process;
  private int starts;

  KeelDevProcess(Path storage, int port, int uiPort, Path logDir) {
    this.storage = storage;
    this.port = port;
    this.uiPort = uiPort;
    this.logDir = logDir;
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  String uiUrl() {
    return "http://127.0.0.1:" + uiPort;
  }

  Path storage() {
    return storage;
  }

  Path log() {
    return logDir.resolve("keel-dev-" + starts + ".log");
  }

  /** Starts {@code keel dev} and waits until it says it is up. */
  void start() {
    starts++;
    try {
      Files.createDirectories(logDir);
      ProcessBuilder pb =
          new ProcessBuilder(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-Xmx1g",
                      "-jar",
                      RealTemporal.jar().toString(),
                      "dev",
                      "--temporal",
                      "cli",
                      "--port",
                      Integer.toString(port),
                      "--ui-port",
                      Integer.toString(uiPort),
                      "--api-port",
                      "-1",
                      "--train-threads",
                      "2",
                      "--storage",
                      storage.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log().toFile());
      pb.environment().put("KEEL_HOME", RealTemporal.home().toString());
      pb.environment().put("OMP_WAIT_POLICY", "passive");
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start keel dev", e);
    }
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (System.nanoTime() < deadline) {
      String out = read(log());
      if (out.contains("keel dev is up")) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "keel dev exited with " + process.exitValue() + ":\n" + out);
      }
      sleep(200);
    }
    throw new IllegalStateException("keel dev did not come up within 180 s:\n" + read(log()));
  }

  /** SIGKILL, no shutdown hooks; the Temporal server's watchdog must stop the server by itself. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("keel dev survived SIGKILL");
    }
    awaitPortFree(Duration.ofSeconds(60));
  }

  /** SIGTERM: keel dev's shutdown hook stops the workers and the Temporal server. */
  void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      awaitPortFree(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitPortFree(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (listening(port)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the Temporal dev server still listens on "
                + address()
                + " after keel dev died: it would block a restart");
      }
      sleep(200);
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 300);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
