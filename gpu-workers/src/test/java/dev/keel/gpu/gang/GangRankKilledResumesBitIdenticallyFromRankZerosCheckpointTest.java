package dev.keel.gpu.gang;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.testing.TestDirs;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code kill -9} of one rank mid-training: the surviving rank stops with a collective error
 * instead of hanging, and the gang started again from rank 0's last checkpoint ends with exactly
 * the parameters and optimizer state of a gang that was never interrupted (what the workflow does
 * on a rank failure; {@code GangOfRanksRestartsWholeFromRankZerosCheckpointTest} pins that part).
 */
class GangRankKilledResumesBitIdenticallyFromRankZerosCheckpointTest {
  private static final String[] RUN = {
    "optimizer=adam", "batch=128", "steps=60", "every=20", "world=2"
  };

  @Test
  void survivorFailsFastAndTheRestartedGangFinishesBitIdentical() throws Exception {
    Path dir = TestDirs.create("gang-kill");
    String straight = gang(dir, "straight", null);

    int port = RankProcesses.freePort();
    RankProcesses.Rank r0 =
        RankProcesses.start(dir, "killed-0", with("trial=killed", "rank=0", "port=" + port));
    RankProcesses.Rank r1 =
        RankProcesses.start(dir, "killed-1", with("trial=killed", "rank=1", "port=" + port));
    RankProcesses.go(r0, r1);
    r0.awaitOutput(out -> out.contains("WRITTEN ") && lastBatch(out) >= 25, 240);
    r1.process().destroyForcibly(); // SIGKILL
    long killed = System.nanoTime();
    assertTrue(
        r0.process().waitFor(120, TimeUnit.SECONDS),
        "rank 0 hangs after its peer died:\n" + r0.output());
    double seconds = (System.nanoTime() - killed) / 1e9;
    System.out.printf(
        "rank 0 stopped %.2f s after rank 1 was killed at batch %d%n",
        seconds, lastBatch(r0.output()));
    assertEquals(3, r0.process().exitValue(), r0.output());
    r0.awaitOutput(out -> out.contains("FAILED "), 30);
    String lastWritten =
        r0.output()
            .lines()
            .filter(l -> l.startsWith("WRITTEN "))
            .map(l -> l.substring(8))
            .reduce((a, b) -> b)
            .orElseThrow();

    String resumed = gang(dir, "killed", lastWritten);
    Path a = Path.of(URI.create(straight));
    Path b = Path.of(URI.create(resumed));
    assertArrayEquals(
        Files.readAllBytes(a.resolve(CheckpointFiles.PARAMETERS)),
        Files.readAllBytes(b.resolve(CheckpointFiles.PARAMETERS)),
        "parameters differ after the gang restart");
    assertArrayEquals(
        Files.readAllBytes(a.resolve(CheckpointFiles.OPTIMIZER)),
        Files.readAllBytes(b.resolve(CheckpointFiles.OPTIMIZER)),
        "optimizer state differs after the gang restart");
  }

  private static String gang(Path dir, String trial, String from) throws Exception {
    int port = RankProcesses.freePort();
    String start = from == null ? "every=20" : "from=" + from;
    RankProcesses.Rank r0 =
        RankProcesses.start(
            dir, trial + "-run-0", with("trial=" + trial, "rank=0", "port=" + port, start));
    RankProcesses.Rank r1 =
        RankProcesses.start(
            dir, trial + "-run-1", with("trial=" + trial, "rank=1", "port=" + port, start));
    RankProcesses.go(r0, r1);
    String checkpoint = r0.finish();
    r1.finish();
    return checkpoint;
  }

  private static String[] with(String... more) {
    String[] all = Arrays.copyOf(RUN, RUN.length + more.length);
    System.arraycopy(more, 0, all, RUN.length, more.length);
    return all;
  }

  private static long lastBatch(String output) {
    return output
        .lines()
        .filter(l -> l.startsWith("BATCH "))
        .mapToLong(l -> Long.parseLong(l.substring(6)))
        .max()
        .orElse(0);
  }
}
