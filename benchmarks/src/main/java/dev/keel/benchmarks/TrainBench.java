package dev.keel.benchmarks;

import com.google.protobuf.Value;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TrainRequest;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.train.Metrics;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.gpu.train.TrainingProgress;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Trains the demo configuration on Fashion-MNIST IDX files and prints batches, wall time,
 * validation accuracy and the test-split (t10k) accuracy of the final checkpoint.
 *
 * <pre>
 * TrainBench [--data DIR] [--batches N] [--threads N] [--seed N] [--out DIR] [name=value ...]
 * </pre>
 *
 * Run with {@code OMP_WAIT_POLICY=passive}.
 */
public final class TrainBench {
  /**
   * The demo's length and threads on 2 CPU cores: the fashion_cnn defaults for 3,000 batches on 2
   * threads.
   */
  private static final long DEMO_BATCHES = 3000;

  private static final int DEMO_THREADS = 2;

  private TrainBench() {}

  public static void main(String[] args) throws IOException {
    Path data = Path.of(DemoRequest.DEFAULT_DATA);
    long batches = DEMO_BATCHES;
    int threads = DEMO_THREADS;
    long seed = 42;
    Path out = null;
    TrainRequest.Builder request =
        TrainRequest.newBuilder()
            .setExperimentId("bench")
            .setTrialId("bench-1")
            .setModel(ModelSpec.newBuilder().setName(FashionCnn.NAME));
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> data = Path.of(args[++i]);
        case "--batches" -> batches = Long.parseLong(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> {
          String[] kv = args[i].split("=", 2);
          if (kv.length != 2) {
            throw new IllegalArgumentException("expected name=value, got " + args[i]);
          }
          request.putHparams(kv[0], parse(kv[1]));
        }
      }
    }
    if (out == null) {
      out = Files.createTempDirectory("keel-bench");
    }
    request
        .setTargetBatches(batches)
        .setThreads(threads)
        .setSeed(seed)
        .setCheckpointRoot(out.toUri().toString());
    LabeledImages train = IdxFiles.read(data, "train");
    LabeledImages test = IdxFiles.read(data, "t10k");
    TrainingPlan plan = TrainingPlan.from(request.build(), ModelZoo.withBuiltIns());
    System.out.println("hyperparameters: " + plan.hyperparameters());
    System.out.println(
        "threads: " + plan.threads() + ", seed: " + seed + ", target batches: " + batches);
    long t0 = System.nanoTime();
    TrainingOutcome outcome =
        new Trainer(
                plan,
                train,
                new ProgressListener() {
                  long lastPrint = System.nanoTime();

                  @Override
                  public void onProgress(TrainingProgress p) {
                    if (System.nanoTime() - lastPrint > 10_000_000_000L
                        || p.batches() == p.targetBatches()) {
                      lastPrint = System.nanoTime();
                      System.out.printf(
                          "  batch %d/%d epoch %d loss %.4f %.1f batches/s, RSS %s%n",
                          p.batches(),
                          p.targetBatches(),
                          p.epoch(),
                          p.loss(),
                          p.batchesPerSecond(),
                          rss());
                    }
                  }
                })
            .run();
    double trainSeconds = (System.nanoTime() - t0) / 1e9;
    long t1 = System.nanoTime();
    double testAccuracy;
    try (CheckpointPredictor predictor = CheckpointPredictor.open(outcome.checkpoint())) {
      Predictions p = predictor.predict(test);
      testAccuracy = p.accuracy(test.labels());
    }
    double testSeconds = (System.nanoTime() - t1) / 1e9;
    int trainingRows = plan.validation().trainingRows(train);
    System.out.printf(
        "batches: %d (%.2f epochs of %d rows)%n",
        outcome.batches(),
        outcome.batches() * (double) plan.batchSize() / trainingRows,
        trainingRows);
    System.out.printf(
        "train+validate wall time: %.1f s (%.1f batches/s)%n",
        trainSeconds, outcome.batches() / trainSeconds);
    System.out.printf(
        "validation accuracy: %.4f, loss %.4f%n",
        outcome.validationMetrics().get(Metrics.VALIDATION_ACCURACY),
        outcome.validationMetrics().get(Metrics.VALIDATION_LOSS));
    System.out.printf(
        "test (t10k) accuracy: %.4f (%.1f s for %d images)%n",
        testAccuracy, testSeconds, test.size());
    System.out.println(
        "checkpoint: "
            + outcome.checkpoint().getUri()
            + " ("
            + outcome.checkpoint().getSizeBytes()
            + " bytes)");
  }

  private static String rss() {
    try {
      return Files.readAllLines(Path.of("/proc/self/status")).stream()
          .filter(l -> l.startsWith("VmRSS:"))
          .map(l -> l.substring(6).trim())
          .findFirst()
          .orElse("?");
    } catch (IOException e) {
      return "?";
    }
  }

  private static Value parse(String s) {
    try {
      return Value.newBuilder().setNumberValue(Double.parseDouble(s)).build();
    } catch (NumberFormatException e) {
      return Value.newBuilder().setStringValue(s).build();
    }
  }
}
