package dev.keel.gpu.gang;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.gpu.torch.PyTorchFixtures;
import dev.keel.storage.testing.TestDirs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Data parallelism changes nothing but speed: two worker processes, each with half of every batch
 * of 128 and gradients averaged over c10d Gloo, end with the parameters one process gets from the
 * whole batch, to float rounding. Half the batch on one rank alone must not (the check can fail).
 */
class TwoRanksOfHalfABatchTrainLikeOneRankOfTheWholeBatchTest {
  private static final String STEPS = "steps=40";

  @ParameterizedTest
  @ValueSource(strings = {"sgd", "adam"})
  void afterFortyStepsTheParametersAgreeWithinOneMillionth(String optimizer) throws Exception {
    compare(TestDirs.create("equivalence-" + optimizer), optimizer, optimizer);
  }

  /** The same for a CNN written in PyTorch and exported as TorchScript (no batch norm). */
  @Test
  void aTorchScriptCnnAgreesLikeABuiltInModel() throws Exception {
    Path dir = TestDirs.create("equivalence-torchscript");
    Path cnn = PyTorchFixtures.cnn(dir.resolve("models"), 1, 28, 10, 4, 5, false);
    compare(dir, "torchscript", "adam", "torchscript=" + cnn);
  }

  private static void compare(Path dir, String label, String optimizer, String... extra)
      throws Exception {
    int port = RankProcesses.freePort();
    RankProcesses.Rank one =
        start(
            extra,
            dir,
            "one",
            "trial=one",
            "optimizer=" + optimizer,
            "batch=128",
            STEPS,
            "rank=0",
            "world=1");
    RankProcesses.Rank r0 =
        start(
            extra,
            dir,
            "two-0",
            "trial=two",
            "optimizer=" + optimizer,
            "batch=128",
            STEPS,
            "rank=0",
            "world=2",
            "port=" + port);
    RankProcesses.Rank r1 =
        start(
            extra,
            dir,
            "two-1",
            "trial=two",
            "optimizer=" + optimizer,
            "batch=128",
            STEPS,
            "rank=1",
            "world=2",
            "port=" + port);
    RankProcesses.go(r0, r1);
    String whole = one.finish();
    String shared = r0.finish();
    r1.finish();
    RankProcesses.Rank half =
        start(
            extra,
            dir,
            "half",
            "trial=half",
            "optimizer=" + optimizer,
            "batch=64",
            STEPS,
            "rank=0",
            "world=1");
    String halfBatch = half.finish();

    List<float[]> reference = RankProcesses.parameters(whole);
    double gang = RankProcesses.maxAbsDifference(reference, RankProcesses.parameters(shared));
    double alone = RankProcesses.maxAbsDifference(reference, RankProcesses.parameters(halfBatch));
    System.out.printf(
        "%s: max |2 ranks x 64 - 1 rank x 128| = %.3g; 1 rank x 64 alone differs by %.3g%n",
        label, gang, alone);
    assertTrue(gang <= 1e-5, "2 ranks x 64 vs 1 rank x 128 differ by " + gang);
    assertTrue(
        alone > 1e-3, "half the batch alone should train differently, differs by only " + alone);
  }

  private static RankProcesses.Rank start(String[] extra, Path dir, String name, String... args)
      throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(extra));
    return RankProcesses.start(dir, name, all.toArray(String[]::new));
  }
}
