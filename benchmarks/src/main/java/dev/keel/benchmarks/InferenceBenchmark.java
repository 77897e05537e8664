package dev.keel.benchmarks;

import com.google.protobuf.Value;
import com.sun.management.OperatingSystemMXBean;
import dev.keel.activities.TaskQueues;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.inference.InferenceActivitiesImpl;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import dev.keel.workflows.inference.InferenceWorkflow;
import dev.keel.workflows.inference.InferenceWorkflowImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Batch-inference throughput on a split of Fashion-MNIST ({@code test}: 10,000 images, {@code
 * train}: 60,000, one data file each) with a checkpoint of {@code fashion_cnn} trained briefly
 * (demo hyperparameters), variants interleaved in one JVM after a discarded warm-up. Each run's
 * wall time and this JVM's CPU time are printed: on a shared machine the CPU time is the steadier
 * of the two.
 *
 * <ul>
 *   <li>{@code bare}: {@link CheckpointPredictor} over the split already in memory (load the model,
 *       one DJL forward pass per batch of 1,000) — no Delta, no Parquet, no Temporal;
 *   <li>{@code keel}: the {@code Inference} workflow on a loopback Temporal server, one in-process
 *       inference worker with a real worker's activity slots and the same intra-op threads: plan,
 *       partitions read from the Delta table, scored, staged as Parquet, one commit. Timed from
 *       start to result;
 *   <li>{@code keel-eval}: as {@code keel}, evaluating only: no predictions staged or committed;
 *   <li>{@code keel-1w} / {@code keel-2w}: the same workflow with 1 thread per worker, served by
 *       one or by two in-process inference workers (two WorkerFactory instances polling {@code
 *       keel-infer}).
 *   <li>{@code proc-1w} / {@code proc-2w}: the same workflow served by {@code keel worker --roles
 *       INFER --train-threads 1} processes, as on separate machines: after the interleaved
 *       variants, one process is started and its runs timed, then a second one joins and the runs
 *       are timed again (a warm-up run before each). Only wall time: the workers' CPU is not this
 *       JVM's.
 * </ul>
 *
 * <pre>
 * InferenceBenchmark [--reps 5] [--warmups 1] [--threads 2] [--train-batches 300] [--split test|train]
 *     [--partition-rows N (default: the workflow's)] [--variants bare,keel[,bare-split,keel-eval,keel-1w,keel-2w,proc-1w,proc-2w]]
 *     [--data DIR] [--storage DIR] [--torchscript FILE]
 * </pre>
 */
public final class InferenceBenchmark {
  private InferenceBenchmark() {}

  /**
   * A hand-written data-parallel loop: {@code threads} threads, each opening a 1-thread predictor
   * and scoring its slice.
   */
  private static Predictions bareSplit(String checkpoint, LabeledImages examples, int threads)
      throws Exception {
    int n = examples.size();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Predictions>> parts = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int from = (int) ((long) n * i / threads);
        int to = (int) ((long) n * (i + 1) / threads);
        parts.add(
            pool.submit(
                () -> {
                  try (CheckpointPredictor predictor =
                      CheckpointPredictor.open(checkpoint, ModelZoo.withBuiltIns(), 1)) {
                    return predictor.predict(examples.slice(from, to));
                  }
                }));
      }
      List<Predictions> slices = new ArrayList<>();
      for (Future<Predictions> f : parts) {
        slices.add(f.get());
      }
      return Predictions.concatenate(slices);
    } finally {
      pool.shutdown();
    }
  }

  public static void main(String[] args) throws Exception {
    int reps = 5;
    int warmups = 1;
    int threads = 2;
    long trainBatches = 300;
    long partitionRows = 0; // the workflow's default
    String split = "test";
    List<String> variants = List.of("bare", "keel", "keel-1w", "keel-2w");
    Path data = Path.of(DemoRequest.DEFAULT_DATA);
    Path storage = null;
    String torchscript = ""; // a TorchScript file to train and score instead of fashion_cnn
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--warmups" -> warmups = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--train-batches" -> trainBatches = Long.parseLong(args[++i]);
        case "--partition-rows" -> partitionRows = Long.parseLong(args[++i]);
        case "--split" -> split = args[++i];
        case "--variants" -> variants = List.of(args[++i].split(","));
        case "--data" -> data = Path.of(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        case "--torchscript" -> torchscript = args[++i];
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--reps N --warmups N --threads N --train-batches N --partition-rows N --split test|train"
                    + " --variants bare,bare-split,keel,keel-eval,keel-1w,keel-2w,proc-1w,proc-2w --data DIR --storage DIR --torchscript FILE)");
      }
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-bench-inference");
    }
    String loadBefore = Machine.loadAverages();
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + loadBefore);

    StorageRoot root = StorageRoot.of(storage.toAbsolutePath().toString());
    IngestResult table = FashionData.ingest(root, data);
    TableRef source = table.getTable();
    LabeledImages train = new DeltaDatasetReader().read(source, Splits.TRAIN);
    LabeledImages examples = new DeltaDatasetReader().read(source, split);
    CheckpointRef checkpoint = train(root, source, train, trainBatches, threads, torchscript);
    String sizing =
        String.format(
            Locale.ROOT,
            "partitions of <= %,d rows%s",
            partitionRows > 0 ? partitionRows : InferenceWorkflowImpl.DEFAULT_PARTITION_ROWS,
            partitionRows > 0 ? "" : " (the workflow's default)");
    System.out.printf(
        Locale.ROOT,
        "table %s v%d: %d %s rows; checkpoint %s (%d batches); %d intra-op thread(s), "
            + "%s, %d repetitions%n",
        source.getUri(),
        source.getVersion(),
        examples.size(),
        split,
        checkpoint.getUuid(),
        trainBatches,
        threads,
        sizing,
        reps);

    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
        KeelWorkerHost control =
            KeelWorkerHost.start(
                WorkerHostOptions.newBuilder()
                    .setTemporalAddress(temporal.address())
                    .setStorageRoot(root)
                    .optDevServer(true)
                    .optRoles(EnumSet.of(Role.CONTROL))
                    .build())) {
      WorkflowClient client = control.client();
      Map<String, List<Double>> wall = new LinkedHashMap<>();
      Map<String, List<Double>> cpu = new LinkedHashMap<>();
      variants.forEach(v -> wall.put(v, new ArrayList<>()));
      variants.forEach(v -> cpu.put(v, new ArrayList<>()));
      Map<String, String> accuracy = new TreeMap<>();
      InferenceRequest base =
          InferenceRequest.newBuilder()
              .setCheckpoint(checkpoint)
              .setData(source)
              .setSplit(split)
              .setModel(
                  torchscript.isEmpty()
                      ? ModelSpec.newBuilder().setName(FashionCnn.NAME).build()
                      : ModelSpec.newBuilder().setTorchscript(torchscript).build())
              .setMaxPartitionRows(partitionRows)
              .build();
      int run = 0;
      System.out.printf(Locale.ROOT, "warm-up (discarded): %d run(s) of each variant%n", warmups);
      List<String> interleaved = variants.stream().filter(v -> !v.startsWith("proc-")).toList();
      for (int rep = -warmups; rep < reps && !interleaved.isEmpty(); rep++) {
        List<String> order = new ArrayList<>(interleaved);
        Collections.rotate(order, -Math.max(rep, 0));
        for (String v : order) {
          double seconds;
          String acc;
          long cpu0 = cpuNanos();
          if (v.equals("bare")) {
            long t0 = System.nanoTime();
            Predictions p;
            try (CheckpointPredictor predictor =
                CheckpointPredictor.open(checkpoint.getUri(), ModelZoo.withBuiltIns(), threads)) {
              p = predictor.predict(examples);
            }
            seconds = (System.nanoTime() - t0) / 1e9;
            acc = String.format(Locale.ROOT, "%.4f", p.accuracy(examples.labels()));
          } else if (v.equals("bare-split")) {
            long t0 = System.nanoTime();
            Predictions p = bareSplit(checkpoint.getUri(), examples, threads);
            seconds = (System.nanoTime() - t0) / 1e9;
            acc = String.format(Locale.ROOT, "%.4f", p.accuracy(examples.labels()));
          } else {
            int workers = v.equals("keel-2w") ? 2 : 1;
            int t = v.equals("keel") || v.equals("keel-eval") ? threads : 1;
            List<InferenceWorker> inferenceWorkers = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
              inferenceWorkers.add(InferenceWorker.start(client, root, t));
            }
            try {
              String id = "bench-inference-" + (++run);
              InferenceRequest request =
                  base.toBuilder()
                      .setPredictionsTableUri("bench_predictions_" + v)
                      .setThreads(t)
                      .setEvaluateOnly(v.equals("keel-eval"))
                      .build();
              long t0 = System.nanoTime();
              InferenceResult r =
                  client
                      .newWorkflowStub(
                          InferenceWorkflow.class,
                          WorkflowOptions.newBuilder()
                              .setTaskQueue(TaskQueues.CONTROL)
                              .setWorkflowId(id)
                              .build())
                      .run(request);
              seconds = (System.nanoTime() - t0) / 1e9;
              acc =
                  String.format(
                      Locale.ROOT,
                      "%.4f (%d rows, %d partitions)",
                      r.getAccuracy(),
                      r.getRows(),
                      r.getPartitions());
            } finally {
              inferenceWorkers.forEach(InferenceWorker::close);
            }
          }
          double cpuSeconds = (cpuNanos() - cpu0) / 1e9;
          System.out.printf(
              Locale.ROOT,
              "  %s %-8s %6.2f s  %7.0f rows/s  %6.2f s cpu  accuracy %s  (load %s)%n",
              rep < 0 ? "warm-up" : "rep " + (rep + 1),
              v,
              seconds,
              examples.size() / seconds,
              cpuSeconds,
              acc,
              Machine.loadAverages());
          if (rep >= 0) {
            wall.get(v).add(seconds);
            cpu.get(v).add(cpuSeconds);
            accuracy.merge(v, acc, (a, b) -> a.equals(b) ? a : a + " | " + b);
          }
        }
      }
      if (variants.contains("proc-1w") || variants.contains("proc-2w")) {
        Path logs = storage.resolve("logs");
        try (WorkerProcesses first =
            WorkerProcesses.start(
                "INFER", "infer-", 1, 1, temporal.address(), root.toString(), logs)) {
          first.awaitPolling(180_000);
          timeProcesses("proc-1w", client, base, reps, examples.size(), wall, accuracy);
          try (WorkerProcesses second =
              WorkerProcesses.start(
                  "INFER", "infer-second-", 1, 1, temporal.address(), root.toString(), logs)) {
            second.awaitPolling(180_000);
            timeProcesses("proc-2w", client, base, reps, examples.size(), wall, accuracy);
          }
        }
      }
      String loadAfter = Machine.loadAverages();
      System.out.println();
      System.out.printf(
          Locale.ROOT,
          "Batch inference: %d %s images, %s, %s, %d reps%n",
          examples.size(),
          split,
          torchscript.isEmpty() ? "fashion_cnn" : "TorchScript " + torchscript,
          sizing,
          reps);
      System.out.println(
          "| variant | what | median wall | median rows/s | median cpu | wall of each run (s) | cpu of each run (s) |");
      System.out.println("|---|---|---|---|---|---|---|");
      Map<String, String> what =
          Map.of(
              "bare",
              "CheckpointPredictor, " + threads + " thread(s)",
              "bare-split",
              threads + " CheckpointPredictors x 1 thread, a slice each",
              "keel",
              "Inference workflow, 1 worker x " + threads + " thr",
              "keel-eval",
              "Inference workflow, evaluate only (nothing written), 1 worker x " + threads + " thr",
              "keel-1w",
              "Inference workflow, 1 worker x 1 thr",
              "keel-2w",
              "Inference workflow, 2 workers x 1 thr",
              "proc-1w",
              "Inference workflow, 1 worker process x 1 thr",
              "proc-2w",
              "Inference workflow, 2 worker processes x 1 thr");
      for (String v : variants) {
        double med = Machine.median(wall.get(v));
        boolean inThisJvm = !cpu.get(v).isEmpty();
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %.2f s | %,.0f | %s | %s | %s |%n",
            v,
            what.get(v),
            med,
            examples.size() / med,
            inThisJvm ? String.format(Locale.ROOT, "%.2f s", Machine.median(cpu.get(v))) : "–",
            Machine.seconds(wall.get(v)),
            inThisJvm ? Machine.seconds(cpu.get(v)) : "–");
      }
      if (wall.containsKey("bare") && wall.containsKey("keel")) {
        System.out.printf(
            Locale.ROOT,
            "%nkeel throughput / bare throughput: %.3fx (medians), %.3fx (median of pairs)%n",
            Machine.median(wall.get("bare")) / Machine.median(wall.get("keel")),
            medianOfPairs(wall, "bare", "keel"));
        System.out.printf(
            Locale.ROOT,
            "keel cpu / bare cpu (this JVM: server, workers and scorer): %.3fx (medians)%n",
            Machine.median(cpu.get("keel")) / Machine.median(cpu.get("bare")));
      }
      if (wall.containsKey("keel-1w") && wall.containsKey("keel-2w")) {
        System.out.printf(
            Locale.ROOT,
            "2 workers / 1 worker throughput: %.3fx (medians), %.3fx (median of pairs)%n",
            Machine.median(wall.get("keel-1w")) / Machine.median(wall.get("keel-2w")),
            medianOfPairs(wall, "keel-1w", "keel-2w"));
      }
      if (!wall.getOrDefault("proc-1w", List.of()).isEmpty()
          && !wall.getOrDefault("proc-2w", List.of()).isEmpty()) {
        System.out.printf(
            Locale.ROOT,
            "2 worker processes / 1 worker process throughput: %.3fx (medians)%n",
            Machine.median(wall.get("proc-1w")) / Machine.median(wall.get("proc-2w")));
      }
      System.out.println("accuracy per variant (must agree: same checkpoint, same rows):");
      accuracy.forEach((k, v) -> System.out.println("  " + k + ": " + v));
      System.out.println("load averages before: " + loadBefore + ", after: " + loadAfter);
    }
    System.exit(0);
  }

  /**
   * One warm-up and {@code reps} timed runs of the workflow on whatever worker processes poll now.
   */
  private static void timeProcesses(
      String variant,
      WorkflowClient client,
      InferenceRequest base,
      int reps,
      int rows,
      Map<String, List<Double>> wall,
      Map<String, String> accuracy) {
    for (int rep = -1; rep < reps; rep++) {
      InferenceRequest request =
          base.toBuilder()
              .setPredictionsTableUri("bench_predictions_" + variant)
              .setThreads(1)
              .build();
      long t0 = System.nanoTime();
      InferenceResult r =
          client
              .newWorkflowStub(
                  InferenceWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setTaskQueue(TaskQueues.CONTROL)
                      .setWorkflowId("bench-inference-" + variant + "-" + (rep + 1))
                      .build())
              .run(request);
      double seconds = (System.nanoTime() - t0) / 1e9;
      String acc =
          String.format(
              Locale.ROOT,
              "%.4f (%d rows, %d partitions)",
              r.getAccuracy(),
              r.getRows(),
              r.getPartitions());
      System.out.printf(
          Locale.ROOT,
          "  %s %-8s %6.2f s  %7.0f rows/s  accuracy %s  (load %s)%n",
          rep < 0 ? "warm-up" : "rep " + (rep + 1),
          variant,
          seconds,
          rows / seconds,
          acc,
          Machine.loadAverages());
      if (rep >= 0) {
        wall.get(variant).add(seconds);
        accuracy.merge(variant, acc, (a, b) -> a.equals(b) ? a : a + " | " + b);
      }
    }
  }

  private static long cpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Median over repetitions of the throughput ratio {@code b / a} of the same repetition. */
  private static double medianOfPairs(Map<String, List<Double>> wall, String a, String b) {
    List<Double> pairs = new ArrayList<>();
    for (int i = 0; i < wall.get(a).size(); i++) {
      pairs.add(wall.get(a).get(i) / wall.get(b).get(i));
    }
    return Machine.median(pairs);
  }

  private static CheckpointRef train(
      StorageRoot root,
      TableRef source,
      LabeledImages train,
      long batches,
      int threads,
      String torchscript)
      throws Exception {
    TrainRequest request =
        TrainRequest.newBuilder()
            .setExperimentId("bench-inference")
            .setTrialId("trial-1")
            .setData(source)
            .setModel(
                torchscript.isEmpty()
                    ? ModelSpec.newBuilder().setName(FashionCnn.NAME).build()
                    : ModelSpec.newBuilder().setTorchscript(torchscript).build())
            .putHparams("lr", Value.newBuilder().setNumberValue(0.002).build())
            .setSeed(42)
            .setTargetBatches(batches)
            .setThreads(threads)
            .setCheckpointRoot(root.checkpoints())
            .build();
    return new Trainer(
            TrainingPlan.from(request, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
        .run()
        .checkpoint();
  }

  /**
   * An in-process inference worker started for one run: its own factory, fresh real activities
   * (their scoring lanes load the model again, as bare opens the checkpoint) and a real worker's
   * activity slots.
   */
  private record InferenceWorker(WorkerFactory factory, InferenceActivitiesImpl activities)
      implements AutoCloseable {
    static InferenceWorker start(WorkflowClient client, StorageRoot root, int threads) {
      WorkerFactory factory = WorkerFactory.newInstance(client);
      InferenceActivitiesImpl activities =
          new InferenceActivitiesImpl(root, ModelZoo.withBuiltIns(), threads);
      factory
          .newWorker(
              TaskQueues.INFER,
              WorkerOptions.newBuilder()
                  .setMaxConcurrentActivityExecutionSize(InferenceActivitiesImpl.ACTIVITY_SLOTS)
                  .setStickyQueueScheduleToStartTimeout(Duration.ZERO)
                  .build())
          .registerActivitiesImplementations(activities);
      factory.start();
      return new InferenceWorker(factory, activities);
    }

    @Override
    public void close() {
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
      activities.close();
    }
  }
}
