package dev.keel.benchmarks;

import com.google.protobuf.Value;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.ModelRegistry;
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
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
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
import java.util.concurrent.TimeUnit;

/**
 * Batch-inference throughput on the Fashion-MNIST test split (10,000 images) with a checkpoint of
 * {@code fashion_cnn} trained briefly (demo hyperparameters), variants interleaved in one JVM after
 * a discarded warm-up:
 *
 * <ul>
 *   <li>{@code bare}: {@link CheckpointPredictor} over the split already in memory (load the model,
 *       one DJL forward pass per batch of 1,000) — no Delta, no Parquet, no Temporal;
 *   <li>{@code keel}: the {@code Inference} workflow on a loopback Temporal server, one in-process
 *       inference worker with one activity slot and the same intra-op threads: plan, partitions
 *       read from the Delta table, scored, staged as Parquet, one commit. Timed from start to result;
 *   <li>{@code keel-1w} / {@code keel-2w}: the same workflow with 1 thread per worker, served by one
 *       or by two in-process inference workers (two WorkerFactory instances polling
 *       {@code keel-infer}, one activity slot each).
 * </ul>
 *
 * <pre>
 * InferenceBenchmark [--reps 5] [--threads 2] [--train-batches 300] [--partition-rows 2500] [--data DIR] [--storage DIR]
 * </pre>
 */
public final class InferenceBenchmark {
  private InferenceBenchmark() {}

  public static void main(String[] args) throws Exception {
    int reps = 5;
    int threads = 2;
    long trainBatches = 300;
    long partitionRows = 2500;
    Path data = Path.of(DemoRequest.DEFAULT_DATA);
    Path storage = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--train-batches" -> trainBatches = Long.parseLong(args[++i]);
        case "--partition-rows" -> partitionRows = Long.parseLong(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (--reps N --threads N --train-batches N --partition-rows N --data DIR --storage DIR)");
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
    LabeledImages train = new DeltaDatasetReader().read(source, "train");
    LabeledImages test = new DeltaDatasetReader().read(source, "test");
    CheckpointRef checkpoint = train(root, source, train, trainBatches, threads);
    System.out.printf(Locale.ROOT, "table %s v%d: %d test rows; checkpoint %s (%d batches); %d intra-op thread(s), "
        + "partitions of <= %d rows, %d repetitions%n", source.getUri(), source.getVersion(), test.size(),
        checkpoint.getUuid(), trainBatches, threads, partitionRows, reps);

    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
        KeelWorkerHost control = KeelWorkerHost.start(WorkerHostOptions.newBuilder()
            .setTemporalAddress(temporal.address()).setStorageRoot(root).optDevServer(true)
            .optRoles(EnumSet.of(Role.CONTROL)).build())) {
      WorkflowClient client = control.client();
      List<String> variants = List.of("bare", "keel", "keel-1w", "keel-2w");
      Map<String, List<Double>> wall = new LinkedHashMap<>();
      variants.forEach(v -> wall.put(v, new ArrayList<>()));
      Map<String, String> accuracy = new TreeMap<>();
      InferenceRequest base = InferenceRequest.newBuilder().setCheckpoint(checkpoint).setData(source).setSplit("test")
          .setModel(ModelSpec.newBuilder().setName(FashionCnn.NAME)).setMaxPartitionRows(partitionRows).build();
      int run = 0;
      System.out.println("warm-up (discarded): one run of each variant");
      for (int rep = -1; rep < reps; rep++) {
        List<String> order = new ArrayList<>(variants);
        Collections.rotate(order, -Math.max(rep, 0));
        for (String v : order) {
          double seconds;
          String acc;
          if (v.equals("bare")) {
            long t0 = System.nanoTime();
            Predictions p;
            try (CheckpointPredictor predictor = CheckpointPredictor.open(checkpoint.getUri(), ModelRegistry.withBuiltIns(), threads)) {
              p = predictor.predict(test);
            }
            seconds = (System.nanoTime() - t0) / 1e9;
            acc = String.format(Locale.ROOT, "%.4f", p.accuracy(test.labels()));
          } else {
            int workers = v.equals("keel-2w") ? 2 : 1;
            int t = v.equals("keel") ? threads : 1;
            List<WorkerFactory> factories = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
              factories.add(inferenceWorker(client, root, t));
            }
            try {
              String id = "bench-inference-" + (++run);
              InferenceRequest request = base.toBuilder().setPredictionsTableUri("bench_predictions_" + v)
                  .setThreads(t).build();
              long t0 = System.nanoTime();
              InferenceResult r = client.newWorkflowStub(InferenceWorkflow.class, WorkflowOptions.newBuilder()
                  .setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build()).run(request);
              seconds = (System.nanoTime() - t0) / 1e9;
              acc = String.format(Locale.ROOT, "%.4f (%d rows, %d partitions)", r.getAccuracy(), r.getRows(), r.getPartitions());
            } finally {
              factories.forEach(WorkerFactory::shutdown);
              factories.forEach(f -> f.awaitTermination(10, TimeUnit.SECONDS));
            }
          }
          System.out.printf(Locale.ROOT, "  %s %-8s %6.2f s  %7.0f rows/s  accuracy %s  (load %s)%n",
              rep < 0 ? "warm-up" : "rep " + (rep + 1), v, seconds, test.size() / seconds, acc, Machine.loadAverages());
          if (rep >= 0) {
            wall.get(v).add(seconds);
            accuracy.merge(v, acc, (a, b) -> a.equals(b) ? a : a + " | " + b);
          }
        }
      }
      String loadAfter = Machine.loadAverages();
      System.out.println();
      System.out.printf(Locale.ROOT, "Batch inference: %d test images, fashion_cnn, %d reps%n", test.size(), reps);
      System.out.printf(Locale.ROOT, "| %-8s | %-32s | %11s | %12s | %-36s |%n", "variant", "what", "median wall",
          "median rows/s", "wall of each run (s)");
      System.out.println("|----------|----------------------------------|-------------|--------------|--------------------------------------|");
      Map<String, String> what = Map.of(
          "bare", "CheckpointPredictor, " + threads + " thread(s)",
          "keel", "Inference workflow, 1 worker x " + threads + " thr",
          "keel-1w", "Inference workflow, 1 worker x 1 thr",
          "keel-2w", "Inference workflow, 2 workers x 1 thr");
      for (String v : variants) {
        double med = Machine.median(wall.get(v));
        System.out.printf(Locale.ROOT, "| %-8s | %-32s | %9.2f s | %12.0f | %-36s |%n", v, what.get(v), med,
            test.size() / med, Machine.seconds(wall.get(v)));
      }
      List<Double> pairs = new ArrayList<>();
      for (int i = 0; i < reps; i++) {
        pairs.add(wall.get("bare").get(i) / wall.get("keel").get(i));
      }
      System.out.printf(Locale.ROOT, "%nkeel throughput / bare throughput: %.3fx (medians), %.3fx (median of pairs)%n",
          Machine.median(wall.get("bare")) / Machine.median(wall.get("keel")), Machine.median(pairs));
      System.out.printf(Locale.ROOT, "2 workers / 1 worker throughput: %.3fx%n",
          Machine.median(wall.get("keel-1w")) / Machine.median(wall.get("keel-2w")));
      System.out.println("accuracy per variant (must agree: same checkpoint, same rows):");
      accuracy.forEach((k, v) -> System.out.println("  " + k + ": " + v));
      System.out.println("load averages before: " + loadBefore + ", after: " + loadAfter);
    }
    System.exit(0);
  }

  private static CheckpointRef train(StorageRoot root, TableRef source, LabeledImages train, long batches, int threads)
      throws Exception {
    TrainRequest request = TrainRequest.newBuilder().setExperimentId("bench-inference").setTrialId("trial-1")
        .setData(source).setModel(ModelSpec.newBuilder().setName(FashionCnn.NAME))
        .putHparams("lr", Value.newBuilder().setNumberValue(0.002).build())
        .setSeed(42).setTargetBatches(batches).setThreads(threads)
        .setCheckpointRoot(root.checkpoints()).build();
    return new Trainer(TrainingPlan.from(request, ModelRegistry.withBuiltIns()), train, ProgressListener.NONE)
        .run().checkpoint();
  }

  /** An in-process inference worker: its own factory, one activity slot, the real activities. */
  private static WorkerFactory inferenceWorker(WorkflowClient client, StorageRoot root, int threads) {
    WorkerFactory factory = WorkerFactory.newInstance(client);
    factory.newWorker(TaskQueues.INFER, WorkerOptions.newBuilder().setMaxConcurrentActivityExecutionSize(1)
            .setStickyQueueScheduleToStartTimeout(Duration.ZERO).build())
        .registerActivitiesImplementations(new InferenceActivitiesImpl(root, ModelRegistry.withBuiltIns(), threads));
    factory.start();
    return factory;
  }
}
