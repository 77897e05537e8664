package dev.keel.service.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The slot-process supervisor with small shell processes standing in for slot JVMs: a dead process
 * is started again after a growing back-off with one line each time, closing stops every process
 * (SIGKILL for one that ignores SIGTERM), a slot's environment reaches its process, and a slot
 * process notices its parent is gone.
 */
class TrainSlotProcessesRestartAndStopTest {
  private final Watched outBytes = new Watched();
  private final Watched childBytes = new Watched();
  private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
  private final PrintStream childOut = new PrintStream(childBytes, true, StandardCharsets.UTF_8);

  @Test
  void aDeadSlotProcessIsRestartedAfterAGrowingBackOffWithOneLineEach() throws Exception {
    RestartBackoff backoff =
        new RestartBackoff(Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofMinutes(1));
    TrainSlotProcesses slots =
        TrainSlotProcesses.start(
            List.of(shell(0, "echo started; exit 3")),
            out,
            childOut,
            backoff,
            Duration.ofSeconds(5));
    try {
      outBytes.await(text -> text.lines().filter(l -> l.contains("restarting in")).count() >= 4);
    } finally {
      slots.close();
    }
    List<String> lines = restartLines().subList(0, 4);
    assertEquals(
        List.of("0.1 s", "0.2 s", "0.4 s", "0.4 s"),
        lines.stream()
            .map(l -> l.substring(l.lastIndexOf("restarting in ") + "restarting in ".length()))
            .toList(),
        out());
    assertTrue(
        lines.get(0).startsWith("slot 0 (test-slot-0) exited with code 3 after 0 s; restarting in"),
        lines.get(0));
    assertTrue(child().lines().filter("[test-slot-0] started"::equals).count() >= 4, child());
  }

  @Test
  void closingStopsEverySlotProcessAndRestartsNone() throws Exception {
    TrainSlotProcesses slots =
        TrainSlotProcesses.start(
            List.of(
                shell(0, "echo up; exec sleep 600"),
                shell(1, "trap '' TERM; echo up; exec sleep 600")),
            out,
            childOut,
            RestartBackoff.standard(),
            Duration.ofSeconds(2));
    childBytes.await(
        text -> text.contains("[test-slot-0] up") && text.contains("[test-slot-1] up"));
    assertTrue(slots.pids().stream().allMatch(Optional::isPresent), slots.pids().toString());
    List<Long> pids = slots.pids().stream().map(Optional::get).toList();
    long started = System.nanoTime();
    slots.close();
    for (long pid : pids) {
      assertFalse(
          ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
          "slot process " + pid + " still runs");
    }
    assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(15), "close took too long");
    assertFalse(slots.supervising(), "close() returned while a slot was still watched");
    assertEquals("", out(), "a process stopped by close() is not restarted");
  }

  @Test
  void aSlotsEnvironmentReachesItsProcess() throws Exception {
    TrainSlotProcesses.Slot slot =
        new TrainSlotProcesses.Slot(
            1,
            "test-slot-1",
            List.of("/bin/sh", "-c", "echo \"visible=$CUDA_VISIBLE_DEVICES\"; exec sleep 600"),
            Map.of("CUDA_VISIBLE_DEVICES", "1"));
    TrainSlotProcesses slots =
        TrainSlotProcesses.start(
            List.of(slot), out, childOut, RestartBackoff.standard(), Duration.ofSeconds(5));
    try {
      childBytes.await(text -> text.contains("[test-slot-1] visible=1"));
    } finally {
      slots.close();
    }
  }

  @Test
  void aSlotProcessLearnsThatItsParentIsGone() throws Exception {
    Process parent = new ProcessBuilder("sleep", "600").start();
    CountDownLatch stopped = new CountDownLatch(1);
    TrainSlotProcesses.stopWhenParentExits(parent.pid(), stopped::countDown);
    assertFalse(stopped.await(500, TimeUnit.MILLISECONDS), "stopped while the parent runs");
    parent.destroyForcibly().waitFor();
    assertTrue(stopped.await(20, TimeUnit.SECONDS), "not stopped after the parent died");

    CountDownLatch already = new CountDownLatch(1);
    TrainSlotProcesses.stopWhenParentExits(parent.pid(), already::countDown);
    assertEquals(
        0, already.getCount(), "a parent that is already gone stops the slot process at once");
  }

  @Test
  void aHealthyRunStartsTheBackOffOver() {
    RestartBackoff b =
        new RestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(60));
    assertEquals(
        List.of(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L),
        IntStream.range(0, 8).mapToObj(i -> b.next(Duration.ofSeconds(3)).toSeconds()).toList());
    assertEquals(Duration.ofSeconds(1), b.next(Duration.ofMinutes(5)));
    assertEquals(Duration.ofSeconds(2), b.next(Duration.ZERO));
    assertEquals(Duration.ofSeconds(1), b.fresh().next(Duration.ZERO));
  }

  private static TrainSlotProcesses.Slot shell(int index, String script) {
    return new TrainSlotProcesses.Slot(
        index, "test-slot-" + index, List.of("/bin/sh", "-c", script), Map.of());
  }

  private List<String> restartLines() {
    return out().lines().filter(l -> l.contains("restarting in")).toList();
  }

  private String out() {
    return outBytes.toString(StandardCharsets.UTF_8);
  }

  private String child() {
    return childBytes.toString(StandardCharsets.UTF_8);
  }

  /**
   * Output that wakes its waiters on every write: tests wait on what was printed instead of polling
   * it.
   */
  private static final class Watched extends ByteArrayOutputStream {
    @Override
    public synchronized void write(int b) {
      super.write(b);
      notifyAll();
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      super.write(b, off, len);
      notifyAll();
    }

    synchronized void await(Predicate<String> condition) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!condition.test(toString(StandardCharsets.UTF_8))) {
        long left = deadline - System.nanoTime();
        assertTrue(left > 0, "timed out; printed:\n" + toString(StandardCharsets.UTF_8));
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }
}
