package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.testing.TestDirs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Trains 300 batches straight, and 150 batches + a resume to 300 in a fresh JVM: the final
 * parameters and optimizer state must be bit-identical. The straight run must also have learned.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResumeTest {
  static final long TARGET = 300;
  static final long HALF = 150;

  private Path root;
  private TrainingOutcome straight;

  static TrainRequest.Builder request(Path root, long target) {
    return Requests.fashionCnn(root, target).putHparams("batch_size", Requests.num(64));
  }

  @BeforeAll
  void trainStraight() throws IOException {
    root = TestDirs.create("resume");
    straight =
        train(request(root, TARGET).setTrialId("straight").setCheckpointEveryBatches(HALF).build());
  }

  @Test
  void shortTrainingLearnsWellAboveChance() {
    assertEquals(TARGET, straight.batches());
    double accuracy = straight.validationMetrics().get(Metrics.VALIDATION_ACCURACY);
    assertTrue(accuracy > 0.75, "validation accuracy after 300 batches: " + accuracy);
    assertTrue(
        straight.validationMetrics().get(Metrics.VALIDATION_LOSS) < 0.8,
        straight.validationMetrics().toString());
    assertEquals(
        straight.validationMetrics().get(Metrics.VALIDATION_ACCURACY),
        straight.checkpoint().getMetricsMap().get(Metrics.VALIDATION_ACCURACY));
  }

  @Test
  void everyTrainedRowIsCountedInTheProcessMetrics() throws IOException {
    // the global registry counts only through the registries in it: what a process exporting
    // metrics adds
    io.micrometer.core.instrument.Metrics.addRegistry(new SimpleMeterRegistry());
    double before = TrainingMeters.SAMPLES.count();
    train(request(root, 20).setTrialId("counted").build());
    assertEquals(20 * 64, TrainingMeters.SAMPLES.count() - before, 0.0, "20 batches of 64 rows");
  }

  @Test
  void resumeInANewProcessIsBitIdentical() throws Exception {
    TrainingOutcome first = train(request(root, HALF).setTrialId("resumed").build());
    assertEquals(HALF, first.checkpoint().getBatches());

    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ResumeMain.class.getName());
    cmd.add(root.toString());
    cmd.add(first.checkpoint().getUri());
    cmd.add(Long.toString(TARGET));
    Path log = root.resolve("child.log");
    Process child =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    // a bound on a hang, not a window: the child starts a JVM, loads libtorch and the data and
    // trains
    // 150 batches, which a loaded 2-core machine stretches to minutes
    assertTrue(
        child.waitFor(10, TimeUnit.MINUTES), "child JVM still runs after 10 minutes (hung?)");
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertEquals(0, child.exitValue(), output);
    String resumedUri =
        output
            .lines()
            .filter(l -> l.startsWith("CHECKPOINT "))
            .reduce((a, b) -> b)
            .orElseThrow(() -> new AssertionError("no checkpoint printed:\n" + output))
            .substring(11);

    Path a = Path.of(URI.create(straight.checkpoint().getUri()));
    Path b = Path.of(URI.create(resumedUri));
    assertArrayEquals(
        Files.readAllBytes(a.resolve(CheckpointFiles.PARAMETERS)),
        Files.readAllBytes(b.resolve(CheckpointFiles.PARAMETERS)),
        "parameters differ after resume");
    assertArrayEquals(
        Files.readAllBytes(a.resolve(CheckpointFiles.OPTIMIZER)),
        Files.readAllBytes(b.resolve(CheckpointFiles.OPTIMIZER)),
        "optimizer state differs after resume");
  }

  @Test
  void differentSeedGivesDifferentParameters() throws Exception {
    // Sanity check that the comparison above is sensitive: a different seed changes every byte.
    TrainingOutcome other = train(request(root, HALF).setTrialId("other-seed").setSeed(8).build());
    Path a = Path.of(URI.create(other.checkpoint().getUri()));
    File[] straightCheckpoints =
        root.resolve("exp-test")
            .resolve("straight")
            .toFile()
            .listFiles(f -> f.isDirectory() && !f.getName().startsWith("."));
    boolean anyEqual = false;
    for (File f : straightCheckpoints) {
      anyEqual |=
          Arrays.equals(
              Files.readAllBytes(a.resolve(CheckpointFiles.PARAMETERS)),
              Files.readAllBytes(f.toPath().resolve(CheckpointFiles.PARAMETERS)));
    }
    assertTrue(!anyEqual, "a different seed produced identical parameters");
  }

  private static TrainingOutcome train(TrainRequest r) throws IOException {
    return new Trainer(
            TrainingPlan.from(r, ModelZoo.withBuiltIns()),
            FashionMnist.train(),
            ProgressListener.NONE)
        .run();
  }
}
