package dev.keel.gpu.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import dev.keel.storage.testing.TestDirs;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ranks in separate JVMs on 127.0.0.1 ({@link CollectiveProbeMain}): sums and broadcasts are exact
 * on every rank, and a rank that never joins, dies or hangs makes the others fail with a {@link
 * CollectiveException} instead of hanging. Times are printed, and only bounded generously: the
 * machine is shared.
 */
class CollectivesAcrossProcessesTest {
  /** The collective timeout the ranks use. */
  private static final long TIMEOUT_MS = 5_000;

  /** No failure may take longer than this to surface. */
  private static final long BOUND_MS = 60_000;

  private static Path dir;

  @BeforeAll
  static void loadOnce() throws Exception {
    // DJL extracts libtorch on first use, and concurrent first extractions race: do it here, once.
    Engine.getEngine("PyTorch");
    // Fails (does not skip) with the loader's one-line message when the library was not built.
    NativeCollectives.load();
    dir = TestDirs.create("collectives");
  }

  @Test
  void twoRanksAllreduceEveryShapeAndTypeExactly() throws Exception {
    try (Ranks ranks = new Ranks(dir).start("allreduce", 2, 2, TIMEOUT_MS)) {
      for (int r = 0; r < 2; r++) {
        assertEquals(0, ranks.awaitExit(r, BOUND_MS), ranks.output(r));
        String out = ranks.output(r);
        assertTrue(out.contains("allreduce one op per tensor: sums exact"), out);
        assertTrue(out.contains("allreduce bucketed: sums exact"), out);
        assertTrue(out.contains("allreduce 4 KiB buckets: sums exact"), out);
      }
    }
  }

  @Test
  void threeRanksAllreduceExactly() throws Exception {
    try (Ranks ranks = new Ranks(dir).start("allreduce", 3, 3, TIMEOUT_MS)) {
      for (int r = 0; r < 3; r++) {
        assertEquals(0, ranks.awaitExit(r, BOUND_MS), ranks.output(r));
      }
    }
  }

  @Test
  void broadcastMakesEveryRankHoldTheRootsArrays() throws Exception {
    int root = 1;
    try (Ranks ranks =
        new Ranks(dir).start("broadcast", 2, 2, TIMEOUT_MS, Integer.toString(root))) {
      for (int r = 0; r < 2; r++) {
        assertEquals(0, ranks.awaitExit(r, BOUND_MS), ranks.output(r));
      }
      String rootBefore = ranks.awaitLine(root, "BEFORE ", 0).substring(7);
      assertNotEquals(
          rootBefore,
          ranks.awaitLine(0, "BEFORE ", 0).substring(7),
          "ranks started equal: no test");
      for (int r = 0; r < 2; r++) {
        assertEquals(rootBefore, ranks.awaitLine(r, "AFTER ", 0).substring(6), "rank " + r);
      }
    }
  }

  @Test
  void aRankThatNeverJoinsFailsTheOtherWithinTheTimeout() throws Exception {
    try (Ranks ranks = new Ranks(dir).start("join", 2, 1, TIMEOUT_MS)) {
      long started = System.nanoTime();
      assertEquals(
          CollectiveProbeMain.COLLECTIVE_FAILED, ranks.awaitExit(0, BOUND_MS), ranks.output(0));
      String failure = ranks.awaitLine(0, "COLLECTIVE_EXCEPTION", 0);
      System.out.printf(
          Locale.ROOT,
          "never joins: rank 0 failed %d ms after its store came up: %s%n",
          (System.nanoTime() - started) / 1_000_000,
          failure);
      assertTrue(failure.contains("rank 0 of 2"), failure);
      assertTrue(
          failure.toLowerCase(Locale.ROOT).contains("timeout")
              || failure.toLowerCase(Locale.ROOT).contains("timed out"),
          failure);
    }
  }

  @ParameterizedTest(name = "rank {0} killed")
  @ValueSource(ints = {1, 0})
  void aRankKilledMidLoopFailsTheSurvivor(int killed) throws Exception {
    int survivor = 1 - killed;
    try (Ranks ranks = new Ranks(dir).start("loop", 2, 2, TIMEOUT_MS)) {
      ranks.awaitLine(survivor, "ITER 100", BOUND_MS);
      long killedAt = System.nanoTime();
      ranks.process(killed).destroyForcibly().waitFor(BOUND_MS, TimeUnit.MILLISECONDS);
      assertEquals(
          CollectiveProbeMain.COLLECTIVE_FAILED,
          ranks.awaitExit(survivor, BOUND_MS),
          ranks.output(survivor));
      String failure = ranks.awaitLine(survivor, "COLLECTIVE_EXCEPTION", 0);
      System.out.printf(
          Locale.ROOT,
          "rank %d killed: rank %d failed %d ms later: %s%n",
          killed,
          survivor,
          (System.nanoTime() - killedAt) / 1_000_000,
          failure);
      assertTrue(failure.contains("allreduce"), failure);
    }
  }

  @Test
  void aRankThatHangsMidLoopFailsTheOtherAfterTheTimeout() throws Exception {
    try (Ranks ranks = new Ranks(dir).start("loop", 2, 2, TIMEOUT_MS)) {
      ranks.awaitLine(0, "ITER 100", BOUND_MS);
      long stoppedAt = System.nanoTime();
      signal("STOP", ranks.process(1));
      try {
        assertEquals(
            CollectiveProbeMain.COLLECTIVE_FAILED, ranks.awaitExit(0, BOUND_MS), ranks.output(0));
      } finally {
        signal("CONT", ranks.process(1));
      }
      String failure = ranks.awaitLine(0, "COLLECTIVE_EXCEPTION", 0);
      long ms = (System.nanoTime() - stoppedAt) / 1_000_000;
      System.out.printf(
          Locale.ROOT, "rank 1 stopped: rank 0 failed %d ms later: %s%n", ms, failure);
      assertTrue(failure.contains("allreduce"), failure);
      // 16 ops were in flight; one timeout each would be 80 s
      long after = Long.parseLong(failure.replaceAll(".*after=(\\d+).*", "$1"));
      assertTrue(after < 6 * TIMEOUT_MS, "the failing allreduce took " + after + " ms");
    }
  }

  private static void signal(String signal, Process p) throws Exception {
    Process kill =
        new ProcessBuilder(List.of("kill", "-" + signal, Long.toString(p.pid())))
            .inheritIO()
            .start();
    assertEquals(0, kill.waitFor(), "kill -" + signal);
  }
}
