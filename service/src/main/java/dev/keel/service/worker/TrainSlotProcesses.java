package dev.keel.service.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The training processes of one {@code keel worker --slots N}: a child JVM per slot, each polling
 * the pool's task queue for one Train activity at a time. DJL allows one active gradient collector
 * per JVM, so a process is a slot. A child that dies is started again after a {@link
 * RestartBackoff}, with one line on {@code out}; {@link #close()} stops every child (SIGTERM, then
 * SIGKILL after a grace period). The children stop by themselves when this process dies without
 * closing them ({@link #stopWhenParentExits}).
 */
public final class TrainSlotProcesses implements AutoCloseable {
  /**
   * One slot's process.
   *
   * @param environment added to this process's environment (e.g. {@code CUDA_VISIBLE_DEVICES})
   */
  public record Slot(
      int index, String identity, List<String> command, Map<String, String> environment) {
    public Slot {
      command = List.copyOf(command);
      environment = Map.copyOf(environment);
    }
  }

  private final List<Runner> runners = new ArrayList<>();
  private final Duration stopGrace;
  private volatile boolean stopping;

  private TrainSlotProcesses(Duration stopGrace) {
    this.stopGrace = stopGrace;
  }

  /**
   * Starts every slot's process.
   *
   * @param out where the restart lines go (the worker's own output)
   * @param childOutput where the children's output goes, each line prefixed with {@code
   *     [<identity>]}
   */
  public static TrainSlotProcesses start(
      List<Slot> slots, PrintStream out, PrintStream childOutput) {
    return start(slots, out, childOutput, RestartBackoff.standard(), Duration.ofSeconds(30));
  }

  static TrainSlotProcesses start(
      List<Slot> slots,
      PrintStream out,
      PrintStream childOutput,
      RestartBackoff backoff,
      Duration stopGrace) {
    TrainSlotProcesses processes = new TrainSlotProcesses(stopGrace);
    for (Slot slot : slots) {
      Runner r = processes.new Runner(slot, out, childOutput, backoff.fresh());
      processes.runners.add(r);
      r.thread.start();
    }
    return processes;
  }

  /**
   * The command that starts another JVM like this one, up to the main class: the same {@code java},
   * JVM options (except a debugger agent, whose port a second JVM could not bind) and class path.
   */
  public static List<String> thisJvm() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!arg.startsWith("-agentlib:jdwp") && !arg.startsWith("-Xrunjdwp")) {
        command.add(arg);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    return command;
  }

  /**
   * Runs {@code stop} once the process {@code parentPid} is gone (at once if it already is), so a
   * slot process does not outlive a parent killed with SIGKILL and keep taking work nobody
   * supervises.
   */
  public static void stopWhenParentExits(long parentPid, Runnable stop) {
    Optional<ProcessHandle> parent = ProcessHandle.of(parentPid).filter(ProcessHandle::isAlive);
    if (parent.isEmpty()) {
      stop.run();
      return;
    }
    // nothing waits on the outcome: the worker's stop ends this process (System.exit)
    CompletableFuture<Void> unused = parent.get().onExit().thenRun(stop);
  }

  /** The pids of the slot processes alive now, by slot index; for tests and diagnostics. */
  List<Optional<Long>> pids() {
    List<Optional<Long>> pids = new ArrayList<>();
    for (Runner r : runners) {
      synchronized (r) {
        pids.add(Optional.ofNullable(r.current).filter(Process::isAlive).map(Process::pid));
      }
    }
    return pids;
  }

  /**
   * Stops every slot process: SIGTERM (each closes its Temporal worker), SIGKILL after the grace
   * period.
   */
  @Override
  public void close() {
    stopping = true;
    List<Process> alive = new ArrayList<>();
    for (Runner r : runners) {
      synchronized (r) {
        if (r.current != null && r.current.isAlive()) {
          r.current.destroy();
          alive.add(r.current);
        }
      }
      r.thread.interrupt();
    }
    long deadline = System.nanoTime() + stopGrace.toNanos();
    for (Process p : alive) {
      try {
        if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    for (Runner r : runners) {
      try {
        r.thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Whether any slot is still watched (and would be restarted); false once {@link #close()}
   * returned.
   */
  boolean supervising() {
    return runners.stream().anyMatch(r -> r.thread.isAlive());
  }

  /** Starts one slot's process, waits for it, and starts it again after it dies, until closed. */
  private final class Runner implements Runnable {
    final Slot slot;
    final PrintStream out;
    final PrintStream childOutput;
    final RestartBackoff backoff;
    final Thread thread;

    /** Guarded by this: close() must see every process a runner starts. */
    Process current;

    Runner(Slot slot, PrintStream out, PrintStream childOutput, RestartBackoff backoff) {
      this.slot = slot;
      this.out = out;
      this.childOutput = childOutput;
      this.backoff = backoff;
      this.thread = new Thread(this, "keel-slot-" + slot.index());
      this.thread.setDaemon(true);
    }

    @Override
    public void run() {
      while (!stopping) {
        long started = System.nanoTime();
        String end = null;
        Process p = null;
        synchronized (this) {
          if (stopping) {
            return;
          }
          try {
            p = launch();
          } catch (IOException e) {
            end = "could not start (" + e.getMessage() + ")";
          }
          current = p;
        }
        if (p != null) {
          pump(p);
          while (end == null) {
            try {
              end = "exited with code " + p.waitFor();
            } catch (InterruptedException e) {
              if (stopping) {
                return;
              }
            }
          }
        }
        if (stopping) {
          return;
        }
        Duration ran = Duration.ofNanos(System.nanoTime() - started);
        Duration wait = backoff.next(ran);
        out.printf(
            Locale.ROOT,
            "slot %d (%s) %s after %d s; restarting in %s%n",
            slot.index(),
            slot.identity(),
            end,
            ran.toSeconds(),
            seconds(wait));
        out.flush();
        try {
          Thread.sleep(wait.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private Process launch() throws IOException {
      ProcessBuilder pb = new ProcessBuilder(slot.command()).redirectErrorStream(true);
      pb.environment().putAll(slot.environment());
      return pb.start();
    }

    private void pump(Process p) {
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  String prefix = "[" + slot.identity() + "] ";
                  while ((line = in.readLine()) != null) {
                    if (!line.isBlank()) {
                      childOutput.println(prefix + line);
                    }
                  }
                } catch (IOException e) {
                  // the child is gone; its exit is reported by the runner
                }
              },
              "keel-slot-" + slot.index() + "-output");
      t.setDaemon(true);
      t.start();
    }
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0
        ? d.toSeconds() + " s"
        : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
