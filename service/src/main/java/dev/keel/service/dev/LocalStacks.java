package dev.keel.service.dev;

import dev.keel.storage.StorageRoot;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The Keel dev stacks running on this machine, one small file per Temporal port in the temp
 * directory ({@code keel-dev-stack-<port>.properties}: pid, storage root, ports): a second {@code
 * keel dev} or {@code keel demo} can then say which port is taken and by what, and a demo that
 * attaches to a running stack knows which storage root that stack's workers serve. A file whose
 * process is gone is ignored (and replaced).
 */
public final class LocalStacks {

  /** What a running dev stack recorded about itself. */
  public record Stack(
      long pid,
      String storage,
      int temporalPort,
      int uiPort,
      int apiPort,
      String backend,
      String started) {
    /** "Keel's dev stack (pid 4242, storage file:///…, started …)". */
    public String describe() {
      return "Keel's dev stack (pid " + pid + ", storage " + storage + ", started " + started + ")";
    }
  }

  private LocalStacks() {}

  /** The live stack whose Temporal server listens on {@code temporalPort}, if any. */
  public static Optional<Stack> on(int temporalPort) {
    return read(file(temporalPort)).filter(LocalStacks::alive);
  }

  /**
   * The storage root a run started on the running stack {@code running} uses: the stack's own,
   * unless the user named another one, which is refused (the stack's workers would write
   * elsewhere).
   *
   * @throws IllegalArgumentException naming both roots
   */
  public static StorageRoot rootForAttaching(Stack running, Optional<StorageRoot> named) {
    StorageRoot theirs = StorageRoot.of(running.storage());
    if (named.isPresent() && !named.get().toString().equals(theirs.toString())) {
      throw new IllegalArgumentException(
          "the Keel dev stack on 127.0.0.1:"
              + running.temporalPort()
              + " (pid "
              + running.pid()
              + ") serves storage "
              + theirs
              + ", not "
              + named.get()
              + ": stop it, or run without"
              + " --storage (or with --storage "
              + theirs
              + ")");
    }
    return theirs;
  }

  /** The live stack that uses {@code port} for anything (Temporal, web UI or API), if any. */
  static Optional<Stack> using(int port) {
    try (var files = Files.list(directory())) {
      return files
          .filter(
              f ->
                  f.getFileName().toString().startsWith("keel-dev-stack-")
                      && f.getFileName().toString().endsWith(".properties"))
          .map(LocalStacks::read)
          .flatMap(Optional::stream)
          .filter(s -> s.temporalPort() == port || s.uiPort() == port || s.apiPort() == port)
          .filter(LocalStacks::alive)
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Fails with one line for each of {@code ports} (0 or less: not used) that something on 127.0.0.1
   * already listens on, naming the port and, when it is one, the Keel stack holding it.
   *
   * @throws IllegalArgumentException "port 7233 (Temporal) is taken by Keel's dev stack (pid …,
   *     storage …)"
   */
  static void requireFree(List<Port> ports) {
    List<String> taken = new ArrayList<>();
    for (Port p : ports) {
      if (p.number() > 0 && !free(p.number())) {
        taken.add(
            "port "
                + p.number()
                + " ("
                + p.role()
                + ") is taken by "
                + using(p.number())
                    .map(Stack::describe)
                    .orElse("another process (not a Keel dev stack)"));
      }
    }
    if (!taken.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", taken)
              + ": stop it, choose other ports (--port, --ui-port, --api-port), or run `keel demo` against it");
    }
  }

  /** A port a stack wants, with what it is for. */
  record Port(int number, String role) {}

  /** Records this process's stack; the returned handle removes the record. */
  static AutoCloseable record(Stack stack) {
    Path target = file(stack.temporalPort());
    try {
      Path tmp = Files.createTempFile(directory(), "keel-dev-stack-", ".tmp");
      Properties p = new Properties();
      p.setProperty("pid", Long.toString(stack.pid()));
      p.setProperty("storage", stack.storage());
      p.setProperty("temporalPort", Integer.toString(stack.temporalPort()));
      p.setProperty("uiPort", Integer.toString(stack.uiPort()));
      p.setProperty("apiPort", Integer.toString(stack.apiPort()));
      p.setProperty("backend", stack.backend());
      p.setProperty("started", stack.started());
      try (Writer w = Files.newBufferedWriter(tmp)) {
        p.store(w, "a running Keel dev stack");
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      // a missing record only makes a second stack's message less precise
      return () -> {};
    }
    return () ->
        read(target)
            .filter(s -> s.pid() == stack.pid())
            .ifPresent(
                s -> {
                  try {
                    Files.deleteIfExists(target);
                  } catch (IOException ignored) {
                    // stale records are ignored by pid
                  }
                });
  }

  static Stack ofThisProcess(
      String storage, int temporalPort, int uiPort, int apiPort, String backend) {
    return new Stack(
        ProcessHandle.current().pid(),
        storage,
        temporalPort,
        uiPort,
        apiPort,
        backend,
        Instant.now().toString());
  }

  private static boolean alive(Stack s) {
    return ProcessHandle.of(s.pid()).map(ProcessHandle::isAlive).orElse(false);
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Optional<Stack> read(Path file) {
    try {
      if (!Files.exists(file)) {
        return Optional.empty();
      }
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(file)) {
        p.load(r);
      }
      return Optional.of(
          new Stack(
              Long.parseLong(p.getProperty("pid")),
              p.getProperty("storage"),
              Integer.parseInt(p.getProperty("temporalPort")),
              Integer.parseInt(p.getProperty("uiPort")),
              Integer.parseInt(p.getProperty("apiPort")),
              p.getProperty("backend"),
              p.getProperty("started")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Path file(int temporalPort) {
    return directory().resolve("keel-dev-stack-" + temporalPort + ".properties");
  }

  private static Path directory() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }
}
