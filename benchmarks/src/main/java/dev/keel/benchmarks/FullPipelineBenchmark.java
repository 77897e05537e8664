package dev.keel.benchmarks;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineStage;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.experiment.ExperimentTable;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One pipeline request run whole, as a user's would: ETL → search → final training → register →
 * inference → promote, timed per stage. The control, ETL and inference workers live in this JVM on
 * a loopback Temporal server; training runs on {@code --workers} child JVMs ({@code keel worker
 * --roles TRAIN}), so a final training with {@code slots_per_trial: 2} is a gang across two
 * processes.
 *
 * <pre>
 * FullPipelineBenchmark [--file examples/fashion-mnist-asha-pipeline.yaml] [--workers 2] [--train-threads 1]
 *     [--storage DIR] [--target-accuracy 0.93] [--target-minutes 30]
 * </pre>
 */
public final class FullPipelineBenchmark {
  private FullPipelineBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of("examples/fashion-mnist-asha-pipeline.yaml");
    int workers = 2;
    int threads = 1;
    Path storage = null;
    double targetAccuracy = 0.93;
    double targetMinutes = 30;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--file" -> file = Path.of(args[++i]);
        case "--workers" -> workers = Integer.parseInt(args[++i]);
        case "--train-threads" -> threads = Integer.parseInt(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        case "--target-accuracy" -> targetAccuracy = Double.parseDouble(args[++i]);
        case "--target-minutes" -> targetMinutes = Double.parseDouble(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--file YAML --workers N --train-threads N --storage DIR --target-accuracy A --target-minutes M)");
      }
    }
    PipelineRequest request =
        ExperimentConfigLoaders.pipelineLoader().fromYaml(Files.readString(file));
    if (storage == null) {
      storage = Files.createTempDirectory("keel-bench-pipeline");
    }
    String loadBefore = Machine.loadAverages();
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + loadBefore);
    System.out.printf(
        Locale.ROOT,
        "pipeline %s from %s; %d training worker JVM(s) x %d thread(s); storage %s%n",
        request.getName(),
        file,
        workers,
        threads,
        storage);
    StorageRoot root = StorageRoot.of(storage.toAbsolutePath().toString());

    Map<String, Double> stageStarts = new LinkedHashMap<>();
    PipelineResult result;
    double wall;
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
        KeelWorkerHost local =
            KeelWorkerHost.start(
                WorkerHostOptions.newBuilder()
                    .setTemporalAddress(temporal.address())
                    .setStorageRoot(root)
                    .optDevServer(true)
                    .optRoles(EnumSet.of(Role.CONTROL, Role.ETL, Role.INFER))
                    .build());
        WorkerProcesses pool =
            WorkerProcesses.start(
                workers, threads, temporal.address(), root.toString(), storage.resolve("logs"))) {
      pool.awaitPolling(180_000);
      WorkflowClient client = local.client();
      String id = "bench-" + request.getName();
      PipelineWorkflow pipeline =
          client.newWorkflowStub(
              PipelineWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setTaskQueue(TaskQueues.CONTROL)
                  .setWorkflowId(id)
                  .build());
      long t0 = System.nanoTime();
      WorkflowClient.start(pipeline::run, request);
      CompletableFuture<PipelineResult> done =
          client.newUntypedWorkflowStub(id).getResultAsync(PipelineResult.class);
      PipelineWorkflow query = client.newWorkflowStub(PipelineWorkflow.class, id);
      double lastPrint = 0;
      while (!done.isDone()) {
        Thread.sleep(1000);
        double t = (System.nanoTime() - t0) / 1e9;
        PipelineProgress p;
        try {
          p = query.progress();
        } catch (RuntimeException finishing) {
          continue;
        }
        if (!stageStarts.containsKey(p.getStage().name())) {
          stageStarts.put(p.getStage().name(), t);
          System.out.printf(
              Locale.ROOT,
              "%7.0f s  stage %s (load %s)%n",
              t,
              p.getStage(),
              Machine.loadAverages());
        }
        if (t - lastPrint >= 60
            && p.getStage() == PipelineStage.search
            && !p.getExperimentId().isEmpty()) {
          lastPrint = t;
          try {
            ExperimentState s = ExperimentLauncher.state(client, p.getExperimentId());
            System.out.printf(
                Locale.ROOT,
                "%7.0f s  search: %d trials started, best validation_accuracy %.4f%n",
                t,
                s.getTrialsCount(),
                s.getBestMetric());
          } catch (RuntimeException continuingAsNew) {
            // next minute
          }
        }
      }
      result = done.get();
      wall = (System.nanoTime() - t0) / 1e9;
      System.out.print(
          ExperimentTable.render(ExperimentLauncher.state(client, result.getExperimentId())));
    }
    stageStarts.put("end", wall);

    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Full pipeline %s: %d training worker(s) x %d thread(s)%n",
        request.getName(),
        workers,
        threads);
    System.out.println("| stage | seconds |");
    System.out.println("|---|---|");
    String previous = null;
    double previousStart = 0;
    for (Map.Entry<String, Double> e : stageStarts.entrySet()) {
      if (previous != null) {
        System.out.printf(Locale.ROOT, "| %s | %.0f |%n", previous, e.getValue() - previousStart);
      }
      previous = e.getKey();
      previousStart = e.getValue();
    }
    System.out.printf(Locale.ROOT, "| **total** | **%.0f** (%.1f min) |%n", wall, wall / 60);
    System.out.printf(
        Locale.ROOT,
        "best trial of %s: checkpoint %s at %d batches; final training %s; model %s v%d (%s)%n",
        result.getExperimentId(),
        result.getCheckpoint().getUuid(),
        result.getCheckpoint().getBatches(),
        result.hasTrain() ? result.getTrain().getBatches() + " batches" : "skipped",
        result.getModel().getName(),
        result.getModel().getVersion(),
        result.getModel().getStage());
    double accuracy = result.getInference().getAccuracy();
    System.out.printf(
        Locale.ROOT,
        "test accuracy %.4f on %d rows in %.1f min: target %.2f within %.0f min %s%n",
        accuracy,
        result.getInference().getRows(),
        wall / 60,
        targetAccuracy,
        targetMinutes,
        accuracy >= targetAccuracy && wall <= targetMinutes * 60 ? "MET" : "NOT MET");
    System.out.println(
        "load averages before: " + loadBefore + ", after: " + Machine.loadAverages());
    System.exit(0);
  }
}
