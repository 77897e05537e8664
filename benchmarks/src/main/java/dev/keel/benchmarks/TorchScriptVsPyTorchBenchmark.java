package dev.keel.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Value;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TrainRequest;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.train.BatchOrder;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.gpu.train.TrainingProgress;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The same CNN, written in PyTorch and exported as TorchScript, trained by Keel's {@link Trainer}
 * ({@code model.torchscript}) and by a plain PyTorch loop in Python ({@code
 * benchmarks/src/main/python/train_like_keel.py}), side by side in one run, on the same rows in the
 * same order from the same initial weights.
 *
 * <pre>
 * TorchScriptVsPyTorchBenchmark [--reps 3] [--batches 200] [--warmup 10] [--threads 2]
 *     [--batch-size 128] [--lr 0.001] [--seed 42] [--width 16] [--no-eager] [--data DIR]
 *     [--python .tools/torchenv/bin/python] [--script benchmarks/src/main/python/train_like_keel.py]
 *     [--work DIR]
 * </pre>
 *
 * <p>The model ({@code train_like_keel.py export}): conv(1→W) → ReLU → max-pool → conv(W→2W) → ReLU
 * → adaptive average pool → linear(2W→10), no batch norm or dropout. Keel trains it from a {@link
 * TrainRequest} (model.torchscript, Adam, constant lr, the default validation hold-out: 1/12 of the
 * train split by row-id hash, per label). This JVM writes the rows of each of Keel's batches
 * ({@link BatchOrder} over the training rows after the hold-out, as indices into the train IDX
 * file) to {@code batches.npy}; Python loads the same {@code .pt} with {@code torch.jit.load},
 * reads the IDX files itself (pixels scaled exactly as Keel scales them) and trains {@code
 * torch.optim.Adam} with the same hyperparameters on exactly those rows, mean cross-entropy, model
 * in train mode.
 *
 * <p>Each repetition trains every variant from the file's weights for {@code warmup + batches}
 * batches; samples/s counts the {@code batches} after the warm-up (Keel: from its progress
 * callbacks, so it includes turning bytes into a batch tensor, the per-batch seed, the loss read;
 * Python: the same span of its loop, which also reads each loss). The variants' order rotates each
 * repetition. Variants: {@code keel}; {@code pytorch} (the TorchScript module in Python, graph
 * executor optimisation off as Keel runs it); {@code pytorch-eager} (an eager {@code nn.Module} of
 * the same class holding the same weights; {@code --no-eager} skips it). Test accuracy is on the
 * 10,000 t10k images after the last batch. At the end, untimed, Python trains once more with Adam
 * computed as Keel's optimizer computes it ({@code --adam keel}), which tells the optimizers'
 * difference from the rest.
 *
 * <p>Run the whole JVM with {@code OMP_WAIT_POLICY=passive} (libtorch reads it when it loads; the
 * benchmark refuses to start without it); the Python children get it too.
 */
public final class TorchScriptVsPyTorchBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TorchScriptVsPyTorchBenchmark() {}

  /** One variant's run of one repetition. */
  private record Run(
      String variant, double samplesPerSecond, double testAccuracy, double lastLoss, Path model) {}

  public static void main(String[] args) throws Exception {
    int reps = 3;
    int batches = 200;
    int warmup = 10;
    int threads = 2;
    int batchSize = 128;
    double lr = 1e-3;
    long seed = 42;
    int width = 16;
    boolean eager = true;
    Path data = Path.of("/usr/share/datasets/fashion-mnist");
    Path python = Path.of(".tools/torchenv/bin/python");
    Path script = Path.of("benchmarks/src/main/python/train_like_keel.py");
    Path work = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--batches" -> batches = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--batch-size" -> batchSize = Integer.parseInt(args[++i]);
        case "--lr" -> lr = Double.parseDouble(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--width" -> width = Integer.parseInt(args[++i]);
        case "--no-eager" -> eager = false;
        case "--data" -> data = Path.of(args[++i]);
        case "--python" -> python = Path.of(args[++i]);
        case "--script" -> script = Path.of(args[++i]);
        case "--work" -> work = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (!"passive".equals(System.getenv("OMP_WAIT_POLICY"))) {
      System.err.println(
          "set OMP_WAIT_POLICY=passive for this JVM (libtorch reads it when it loads; OpenMP's"
              + " spinning threads make 2 cores 3-4x slower), see benchmarks/README.md");
      System.exit(2);
    }
    if (work == null) {
      work = Files.createTempDirectory("keel-ts-vs-pytorch");
    }
    Files.createDirectories(work);
    System.out.println("machine: " + Machine.describe() + ", load " + Machine.loadAverages());
    System.out.println("work directory: " + work);

    Path model = work.resolve("cnn.pt");
    python(
        python,
        script,
        "export",
        "--out",
        model.toString(),
        "--width",
        Integer.toString(width),
        "--seed",
        "0");

    LabeledImages train = IdxFiles.read(data, "train");
    LabeledImages test = IdxFiles.read(data, "t10k");
    int total = warmup + batches;
    TrainRequest request =
        TrainRequest.newBuilder()
            .setExperimentId("ts-vs-pytorch")
            .setTrialId("warmup")
            .setValidation(
                ConfigDefaults.withDefaults(ExperimentConfig.getDefaultInstance()).getValidation())
            .setModel(ModelSpec.newBuilder().setTorchscript(model.toString()))
            .putHparams("batch_size", number(batchSize))
            .putHparams("lr", number(lr))
            .putHparams("optimizer", Value.newBuilder().setStringValue("adam").build())
            .setSeed(seed)
            .setThreads(threads)
            .setTargetBatches(total)
            .setCheckpointRoot(work.resolve("checkpoints").toUri().toString())
            .build();

    // the rows of Keel's batches, as the Trainer picks them: BatchOrder over the training rows
    // left after the validation hold-out; IdxFiles' ids are row numbers of the train file
    TrainingPlan plan = TrainingPlan.from(request, ModelZoo.withBuiltIns());
    LabeledImages trainRows = (LabeledImages) plan.validation().split(train).train();
    BatchOrder order = new BatchOrder(plan.seed(), trainRows.size(), plan.batchSize());
    int[][] rows = new int[total][];
    for (int b = 0; b < total; b++) {
      int[] r = order.indices(b);
      for (int k = 0; k < r.length; k++) {
        r[k] = Math.toIntExact(trainRows.ids()[r[k]]);
      }
      rows[b] = r;
    }
    Path batchesFile = work.resolve("batches.npy");
    writeNpy(batchesFile, rows);
    System.out.printf(
        Locale.ROOT,
        "model %s (width %d); %d training rows after the hold-out of %d; %d reps of %d batches after"
            + " %d warm-up batches of %d rows; Adam lr %s; %d threads; seed %d%n",
        model.getFileName(),
        width,
        trainRows.size(),
        train.size() - trainRows.size(),
        reps,
        batches,
        warmup,
        batchSize,
        lr,
        threads,
        seed);

    List<String> variants = new ArrayList<>(List.of("keel", "pytorch"));
    if (eager) {
      variants.add("pytorch-eager");
    }
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    variants.forEach(v -> runs.put(v, new ArrayList<>()));
    for (int rep = 0; rep < reps; rep++) {
      for (int k = 0; k < variants.size(); k++) {
        String variant = variants.get((k + rep) % variants.size());
        Run run =
            variant.equals("keel")
                ? keel(request, train, test, rep, warmup, total)
                : python(
                    python,
                    script,
                    variant,
                    model,
                    data,
                    batchesFile,
                    warmup,
                    threads,
                    lr,
                    work.resolve(variant + "-" + rep + ".pt"));
        runs.get(variant).add(run);
        System.out.printf(
            Locale.ROOT,
            "rep %d %-14s %8.1f samples/s  test accuracy %.4f  loss (last 50) %.4f  (load %s)%n",
            rep + 1,
            variant,
            run.samplesPerSecond(),
            run.testAccuracy(),
            run.lastLoss(),
            Machine.loadAverages());
      }
    }

    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "%-14s %12s %12s %14s  %s%n",
        "variant",
        "samples/s",
        "keel / this",
        "pair ratio",
        "test accuracy (each rep)");
    double keelMedian = median(runs.get("keel"));
    for (String v : variants) {
      List<Double> pair = new ArrayList<>();
      for (int rep = 0; rep < reps; rep++) {
        pair.add(
            runs.get("keel").get(rep).samplesPerSecond() / runs.get(v).get(rep).samplesPerSecond());
      }
      System.out.printf(
          Locale.ROOT,
          "%-14s %12.1f %12.3f %14.3f  %s%n",
          v,
          median(runs.get(v)),
          keelMedian / median(runs.get(v)),
          Machine.median(pair),
          runs.get(v).stream()
              .map(r -> String.format(Locale.ROOT, "%.4f", r.testAccuracy()))
              .toList());
    }
    System.out.println(
        "(samples/s: median over reps; keel / this: ratio of medians; pair ratio: median over reps"
            + " of keel's run / this variant's run of the same rep)");

    Path keelParams = runs.get("keel").get(0).model();
    System.out.println();
    System.out.println("largest |difference| of the final parameters:");
    compare(python, script, "keel rep 1 vs pytorch rep 1", keelParams, runs.get("pytorch").get(0));
    if (eager) {
      compare(
          python,
          script,
          "pytorch rep 1 vs pytorch-eager rep 1",
          runs.get("pytorch").get(0).model(),
          runs.get("pytorch-eager").get(0));
    }
    if (reps > 1) {
      compare(python, script, "keel rep 1 vs keel rep 2", keelParams, runs.get("keel").get(1));
      compare(
          python,
          script,
          "pytorch rep 1 vs pytorch rep 2",
          runs.get("pytorch").get(0).model(),
          runs.get("pytorch").get(1));
    }
    // not timed: the TorchScript module in Python with Adam computed as Keel's optimizer computes
    // it
    Run keelAdam =
        python(
            python,
            script,
            "pytorch-keel-adam",
            model,
            data,
            batchesFile,
            warmup,
            threads,
            lr,
            work.resolve("pytorch-keel-adam.pt"));
    compare(python, script, "keel rep 1 vs pytorch with Keel's Adam", keelParams, keelAdam);
    System.out.printf(
        Locale.ROOT,
        "pytorch with Keel's Adam (epsilon after the bias correction): test accuracy %.4f, loss (last"
            + " 50) %.4f%n",
        keelAdam.testAccuracy(),
        keelAdam.lastLoss());
    System.out.println("load at the end: " + Machine.loadAverages());
  }

  private static Run keel(
      TrainRequest request, LabeledImages train, LabeledImages test, int rep, int warmup, int total)
      throws IOException {
    TrainingPlan plan =
        TrainingPlan.from(
            request.toBuilder().setTrialId("rep-" + (rep + 1)).build(), ModelZoo.withBuiltIns());
    long[] marks = new long[2];
    double[] lastLoss = new double[1];
    ProgressListener timing =
        new ProgressListener() {
          @Override
          public void onProgress(TrainingProgress p) {
            if (p.batches() == warmup && marks[0] == 0) {
              marks[0] = System.nanoTime();
            } else if (p.batches() == total && marks[1] == 0) {
              marks[1] = System.nanoTime();
              lastLoss[0] = p.loss();
            }
          }
        };
    TrainingOutcome outcome = new Trainer(plan, train, timing).run();
    double seconds = (marks[1] - marks[0]) / 1e9;
    double accuracy;
    try (CheckpointPredictor predictor = CheckpointPredictor.open(outcome.checkpoint())) {
      accuracy = predictor.predict(test).accuracy(test.labels());
    }
    Path params =
        Path.of(URI.create(outcome.checkpoint().getUri())).resolve(CheckpointFiles.PARAMETERS);
    // Keel's loss is the mean of the last 50 batches' losses (its progress reports no other)
    return new Run(
        "keel",
        (total - warmup) * (double) plan.batchSize() / seconds,
        accuracy,
        lastLoss[0],
        params);
  }

  private static Run python(
      Path python,
      Path script,
      String variant,
      Path model,
      Path data,
      Path batches,
      int warmup,
      int threads,
      double lr,
      Path out)
      throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "train",
                "--model",
                model.toString(),
                "--data",
                data.toString(),
                "--batches",
                batches.toString(),
                "--warmup",
                Integer.toString(warmup),
                "--threads",
                Integer.toString(threads),
                "--lr",
                Double.toString(lr),
                "--out",
                out.toString()));
    if (variant.equals("pytorch-eager")) {
      cmd.add("--eager");
    }
    if (variant.equals("pytorch-keel-adam")) {
      cmd.addAll(List.of("--adam", "keel"));
    }
    JsonNode r = python(python, script, cmd.toArray(String[]::new));
    return new Run(
        variant,
        r.get("samples_per_s").asDouble(),
        r.get("test_accuracy").asDouble(),
        r.get("loss_last_50").asDouble(),
        out);
  }

  private static void compare(Path python, Path script, String what, Path a, Run b)
      throws IOException, InterruptedException {
    JsonNode r =
        python(python, script, "compare", "--a", a.toString(), "--b", b.model().toString());
    System.out.printf(
        Locale.ROOT,
        "  %-40s %.3g (largest |parameter| %.3g)%n",
        what,
        r.get("max_abs_diff").asDouble(),
        r.get("max_abs_param").asDouble());
  }

  /** Runs the script with OMP_WAIT_POLICY=passive; its last line of output as JSON, if any. */
  private static JsonNode python(Path python, Path script, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(python.toString(), script.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("OMP_WAIT_POLICY", "passive");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    int rc = p.waitFor();
    if (rc != 0) {
      throw new IOException(String.join(" ", cmd) + " exited with " + rc + ": " + out);
    }
    if (out.isEmpty()) {
      return JSON.createObjectNode();
    }
    String[] lines = out.split("\n");
    return JSON.readTree(lines[lines.length - 1]);
  }

  /** An int32 .npy of shape (batches, rows per batch). */
  private static void writeNpy(Path file, int[][] rows) throws IOException {
    int cols = rows[0].length;
    StringBuilder header =
        new StringBuilder(
            "{'descr': '<i4', 'fortran_order': False, 'shape': ("
                + rows.length
                + ", "
                + cols
                + "), }");
    while ((10 + header.length() + 1) % 64 != 0) {
      header.append(' ');
    }
    header.append('\n');
    ByteBuffer body =
        ByteBuffer.allocate(rows.length * cols * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (int[] r : rows) {
      for (int v : r) {
        body.putInt(v);
      }
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
      byte[] h = header.toString().getBytes(StandardCharsets.US_ASCII);
      out.write(new byte[] {(byte) (h.length & 0xFF), (byte) (h.length >> 8)});
      out.write(h);
      out.write(body.array());
    }
  }

  private static double median(List<Run> runs) {
    return Machine.median(runs.stream().map(Run::samplesPerSecond).toList());
  }

  private static Value number(double v) {
    return Value.newBuilder().setNumberValue(v).build();
  }
}
