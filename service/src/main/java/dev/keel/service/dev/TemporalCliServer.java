package dev.keel.service.dev;

import dev.keel.workflows.KeelSearchAttributes;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Temporal CLI's dev server ({@code temporal server start-dev}): a full Temporal server with
 * SQLite persistence, Schedules, visibility queries and the web UI, bound to 127.0.0.1. Its
 * database lives in a file, so workflows survive restarts of {@code keel dev}.
 *
 * <p>The server runs under a tiny shell watchdog that holds this JVM's end of a pipe: when the JVM
 * dies for any reason (even {@code kill -9}) the pipe closes and the watchdog stops the server, so
 * a restarted {@code keel dev} finds its ports free and the same database.
 */
public final class TemporalCliServer implements AutoCloseable {
  /** Where {@code keel} looks for the binary, after {@code $KEEL_TEMPORAL_CLI}. */
  static final String TOOLS_BINARY = ".tools/temporal";

  /**
   * A server that got TERM can hang in its shutdown with its port closed and its database still
   * open; the watchdog kills it after 10 s, so a restart does not meet a locked database.
   */
  private static final String WATCHDOG =
      "exec 3<&0; \"$@\" </dev/null 3<&- & pid=$!; ( cat <&3 >/dev/null; kill -TERM $pid 2>/dev/null;"
          + " for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $pid 2>/dev/null || exit 0; sleep 1; done;"
          + " kill -KILL $pid 2>/dev/null ) & wait $pid";

  /** How long a start waits for a previous server on the same database to finish dying. */
  private static final Duration PREVIOUS_SERVER_GRACE = Duration.ofSeconds(15);

  private final Process process;
  private final String address;
  private final String uiUrl;
  private final Path dbFile;
  private final Path log;

  private TemporalCliServer(Process process, String address, String uiUrl, Path dbFile, Path log) {
    this.process = process;
    this.address = address;
    this.uiUrl = uiUrl;
    this.dbFile = dbFile;
    this.log = log;
  }

  /**
   * The {@code temporal} binary: {@code $KEEL_TEMPORAL_CLI}, then {@code
   * $KEEL_HOME/.tools/temporal} (and {@code ./.tools/temporal}), then {@code temporal} on the PATH.
   */
  public static Optional<Path> locate() {
    return locate(System.getenv());
  }

  static Optional<Path> locate(Map<String, String> env) {
    List<Path> candidates = new ArrayList<>();
    String explicit = env.get("KEEL_TEMPORAL_CLI");
    if (explicit != null && !explicit.isBlank()) {
      return Optional.of(Path.of(explicit)).filter(Files::isExecutable);
    }
    String home = env.get("KEEL_HOME");
    if (home != null && !home.isBlank()) {
      candidates.add(Path.of(home, TOOLS_BINARY));
    }
    candidates.add(Path.of(TOOLS_BINARY).toAbsolutePath());
    String path = env.getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isBlank()) {
        candidates.add(Path.of(dir, "temporal"));
      }
    }
    return candidates.stream()
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .findFirst();
  }

  /**
   * Starts the dev server on {@code 127.0.0.1:port} (web UI on {@code uiPort}) with its database at
   * {@code dbFile}, registers Keel's search attributes, and waits until it answers.
   */
  public static TemporalCliServer start(
      Path binary, int port, int uiPort, Path dbFile, Duration timeout) {
    try {
      Files.createDirectories(dbFile.toAbsolutePath().getParent());
      Path log = dbFile.resolveSibling("server.log");
      if (listening(port)) {
        throw new IllegalStateException(
            "cannot start the Temporal dev server: 127.0.0.1:"
                + port
                + " is in use (is another `keel dev` running? then `keel demo`/`keel submit` use it as is)");
      }
      awaitNoServerOn(dbFile.toAbsolutePath());
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  "sh",
                  "-c",
                  WATCHDOG,
                  "keel-temporal-watchdog",
                  binary.toString(),
                  "server",
                  "start-dev",
                  "--ip",
                  "127.0.0.1",
                  "--port",
                  Integer.toString(port),
                  "--ui-port",
                  Integer.toString(uiPort),
                  "--db-filename",
                  dbFile.toAbsolutePath().toString(),
                  "--log-level",
                  "warn"));
      for (KeelSearchAttributes.Attribute a : KeelSearchAttributes.ALL) {
        cmd.add("--search-attribute");
        cmd.add(a.name() + "=" + a.cliType());
      }
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      TemporalCliServer server =
          new TemporalCliServer(p, "127.0.0.1:" + port, "http://127.0.0.1:" + uiPort, dbFile, log);
      server.awaitListening(port, timeout);
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + binary + " server start-dev", e);
    }
  }

  /**
   * A previous server on this database (a {@code keel dev} that was killed) may still be shutting
   * down with the database open; a second server opening it meanwhile gets SQLITE_BUSY and the
   * CLI's SQLite driver stays stuck. Wait for it, or say which process holds the database.
   */
  private static void awaitNoServerOn(Path dbFile) {
    String marker = "--db-filename " + dbFile + " ";
    long deadline = System.nanoTime() + PREVIOUS_SERVER_GRACE.toNanos();
    List<ProcessHandle> previous =
        ProcessHandle.allProcesses()
            .filter(h -> h.pid() != ProcessHandle.current().pid())
            .filter(
                h ->
                    h.info()
                        .commandLine()
                        .map(c -> c.contains("start-dev") && c.contains(marker))
                        .orElse(false))
            .toList();
    for (ProcessHandle h : previous) {
      try {
        h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        throw new IllegalStateException(
            "cannot start the Temporal dev server: process "
                + h.pid()
                + " still runs a server on "
                + dbFile
                + " (a `keel dev` that was killed?); stop it and start again");
      } catch (ExecutionException e) {
        // onExit never fails; a handle that cannot be watched is gone
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void awaitListening(int port, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the Temporal dev server exited with "
                + process.exitValue()
                + "; its log "
                + log
                + " ends with:\n"
                + tail(log));
      }
      if (listening(port)) {
        return;
      }
      sleep(100);
    }
    close();
    throw new IllegalStateException(
        "the Temporal dev server did not listen on 127.0.0.1:"
            + port
            + " within "
            + timeout.toSeconds()
            + " s; see "
            + log
            + ":\n"
            + tail(log));
  }

  static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 300);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Temporal dev server", e);
    }
  }

  public String address() {
    return address;
  }

  public String uiUrl() {
    return uiUrl;
  }

  public Path dbFile() {
    return dbFile;
  }

  /** Stops the server gracefully (closing the watchdog's pipe sends it SIGTERM). */
  @Override
  public void close() {
    try {
      process.getOutputStream().close();
    } catch (IOException ignored) {
      // the watchdog is gone already
    }
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
