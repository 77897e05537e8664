package dev.keel.benchmarks;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import com.google.protobuf.Value;
import com.google.protobuf.util.Timestamps;
import com.sun.management.OperatingSystemMXBean;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.train.BatchOrder;
import dev.keel.gpu.train.Batches;
import dev.keel.gpu.train.Evaluation;
import dev.keel.gpu.train.Metrics;
import dev.keel.gpu.train.Seeds;
import dev.keel.gpu.train.TrainValidationSplit;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import io.temporal.client.WorkflowClient;
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
import java.util.concurrent.TimeUnit;

/**
 * Figure 1, platform overhead: one trial of the demo CNN (the demo's hyperparameters, one epoch =
 * 430 batches of 128) trained through Keel versus the same math as a bare DJL loop in this JVM.
 *
 * <p>Variants, measured interleaved (rotating order each repetition), after one discarded warm-up
 * of each:
 *
 * <ul>
 *   <li>{@code bare}: {@link TrainableModel} + {@link BatchOrder} + per-batch seeds + validation,
 *       data already in memory; no checkpoints, no heartbeats, no Temporal.
 *   <li>{@code keel}: an {@code Experiment} workflow with the {@code single} searcher on a loopback
 *       Temporal test server, catalog on, checkpoint every 200 batches, the real {@link
 *       TrainingActivitiesImpl} (1 s heartbeats) on a long-lived training worker whose table cache
 *       is warm (a worker that trained on this table before).
 *   <li>{@code keel-cold}: the same on a training worker started just before (its first activity
 *       reads the Delta table).
 * </ul>
 *
 * Wall time is from starting the workflow to its result; for {@code bare} from building the model
 * to the validation result. CPU time is this JVM's (Temporal server, workers and trainer all live
 * here), which a shared, loaded machine disturbs much less than wall time. "pair ratio" divides
 * each run by the {@code bare} run of the same repetition. Both sides use the same seed, so the
 * validation metrics must be equal.
 *
 * <pre>
 * PlatformOverheadBenchmark [--reps 5] [--threads 2] [--batches N (default 1 epoch)] [--no-cold]
 *     [--data /usr/share/datasets/fashion-mnist] [--storage DIR]
 * </pre>
 */
public final class PlatformOverheadBenchmark {
  static final String EXPERIMENT =
      """
      name: overhead
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 128, width: 16, hidden: 128, dropout: 0.25, optimizer: adam}
      searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {epochs: 1}}
      min_checkpoint_period: {batches: 200}
      reproducibility: {seed: 42}
      model: {name: fashion_cnn}
      """;

  /** Keel's trial 1 trains with seed reproducibility.seed + trial id. */
  static final long TRIAL_SEED = 43;

  private PlatformOverheadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int reps = 5;
    int threads = 2;
    long batches = 0;
    boolean cold = true;
    boolean profile = false;
    Path data = Path.of(DemoRequest.DEFAULT_DATA);
    Path storage = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--batches" -> batches = Long.parseLong(args[++i]);
        case "--no-cold" -> cold = false;
        case "--profile" -> profile = true;
        case "--data" -> data = Path.of(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--reps N --threads N --batches N --no-cold --data DIR --storage DIR)");
      }
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-bench-overhead");
    }
    String loadBefore = Machine.loadAverages();
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + loadBefore);

    StorageRoot root = StorageRoot.of(storage.toAbsolutePath().toString());
    IngestResult table = FashionData.ingest(root, data);
    LabeledImages train = new DeltaDatasetReader().read(table.getTable(), Splits.TRAIN);
    ExperimentConfig base = ExperimentConfigLoaders.experimentLoader().fromYaml(EXPERIMENT);
    if (batches > 0) {
      base =
          base.toBuilder()
              .setSearcher(
                  base.getSearcher().toBuilder()
                      .setMaxLength(Length.newBuilder().setBatches(batches)))
              .build();
    } else {
      int trainingRows =
          train.size() - (int) Math.round(train.size() * ConfigDefaults.VALIDATION_FRACTION);
      batches = (trainingRows + 127L) / 128; // one epoch, as the worker resolves {epochs: 1}
    }
    System.out.printf(
        Locale.ROOT,
        "table %s v%d, %d train rows; %d batches of 128, %d intra-op thread(s), %d repetitions%n",
        table.getTable().getUri(),
        table.getTable().getVersion(),
        train.size(),
        batches,
        threads,
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
      TrainWorker warm = TrainWorker.start(client, root, "bench-warm", threads);
      Map<String, List<Double>> wall = new LinkedHashMap<>();
      Map<String, List<Double>> activity = new TreeMap<>();
      Map<String, List<Double>> trainer = new TreeMap<>();
      List<String> variants = new ArrayList<>(List.of("bare", "keel"));
      if (cold) {
        variants.add("keel-cold");
      }
      variants.forEach(v -> wall.put(v, new ArrayList<>()));
      Map<String, String> metrics = new TreeMap<>();
      Map<String, List<Double>> cpu = new LinkedHashMap<>();

      System.out.println("warm-up (discarded): one run of each variant");
      final long target = batches;
      final ExperimentConfig config = base;
      for (int rep = -1; rep < reps; rep++) {
        List<String> order = new ArrayList<>(variants);
        Collections.rotate(order, -Math.max(rep, 0));
        for (String v : order) {
          double seconds;
          String m;
          long cpu0 = cpuNanos();
          switch (v) {
            case "bare" -> {
              long t0 = System.nanoTime();
              Evaluation e = bareLoop(train, target, threads);
              seconds = (System.nanoTime() - t0) / 1e9;
              m = String.format(Locale.ROOT, "accuracy %.6f loss %.8f", e.accuracy(), e.loss());
            }
            case "keel" -> {
              warm.reset();
              long t0 = System.nanoTime();
              ExperimentResult r = runKeel(client, config, warm.pool);
              seconds = (System.nanoTime() - t0) / 1e9;
              m = metricsOf(r);
              record(activity, "keel", warm.activitySeconds, trainer, warm.trainerSeconds);
            }
            default -> {
              TrainWorker fresh =
                  TrainWorker.start(client, root, "bench-cold-" + (rep + 1), threads);
              try {
                long t0 = System.nanoTime();
                ExperimentResult r = runKeel(client, config, fresh.pool);
                seconds = (System.nanoTime() - t0) / 1e9;
                m = metricsOf(r);
                record(activity, "keel-cold", fresh.activitySeconds, trainer, fresh.trainerSeconds);
              } finally {
                fresh.close();
              }
            }
          }
          double cpuSeconds = (cpuNanos() - cpu0) / 1e9;
          System.out.printf(
              Locale.ROOT,
              "  %s %-9s %7.2f s wall %7.2f s cpu  %s  (load %s)%n",
              rep < 0 ? "warm-up" : "rep " + (rep + 1),
              v,
              seconds,
              cpuSeconds,
              m,
              Machine.loadAverages());
          if (rep >= 0) {
            wall.get(v).add(seconds);
            cpu.computeIfAbsent(v, k -> new ArrayList<>()).add(cpuSeconds);
            metrics.merge(v, m, (a, b) -> a.equals(b) ? a : a + " | " + b);
          } else {
            activity.values().forEach(List::clear);
            trainer.values().forEach(List::clear);
          }
        }
      }
      if (profile) {
        long before = System.currentTimeMillis();
        String id = runKeelId(client, config, warm.pool);
        long started = System.currentTimeMillis();
        client.newUntypedWorkflowStub(id).getResult(ExperimentResult.class);
        long returned = System.currentTimeMillis();
        var events = client.fetchHistory(id).getEvents();
        long first = Timestamps.toMillis(events.get(0).getEventTime());
        long last = Timestamps.toMillis(events.get(events.size() - 1).getEventTime());
        System.out.printf(
            Locale.ROOT,
            "client: start() took %d ms (workflow started %d ms after the call);"
                + " result returned %d ms after the workflow completed%n",
            started - before,
            first - before,
            returned - last);
        printTimeline(client, id);
        printTimeline(client, id + "/trial-1");
      }
      warm.close();
      String loadAfter = Machine.loadAverages();

      double bare = Machine.median(wall.get("bare"));
      System.out.println();
      System.out.printf(
          Locale.ROOT,
          "Platform overhead: fashion_cnn, demo hyperparameters, %d batches, %d thread(s), %d reps%n",
          target,
          threads,
          reps);
      double bareCpu = Machine.median(cpu.get("bare"));
      System.out.printf(
          Locale.ROOT,
          "| %-9s | %11s | %10s | %16s | %10s | %9s | %-44s |%n",
          "variant",
          "median wall",
          "wall ratio",
          "median pair ratio",
          "median cpu",
          "cpu ratio",
          "wall of each run (s)");
      System.out.println(
          "|-----------|-------------|------------|------------------|------------|-----------|"
              + "----------------------------------------------|");
      for (var e : wall.entrySet()) {
        double med = Machine.median(e.getValue());
        List<Double> pairs = new ArrayList<>();
        for (int i = 0; i < e.getValue().size(); i++) {
          pairs.add(e.getValue().get(i) / wall.get("bare").get(i));
        }
        double c = Machine.median(cpu.get(e.getKey()));
        System.out.printf(
            Locale.ROOT,
            "| %-9s | %9.2f s | %9.3fx | %15.3fx | %8.2f s | %8.3fx | %-44s |%n",
            e.getKey(),
            med,
            med / bare,
            Machine.median(pairs),
            c,
            c / bareCpu,
            Machine.seconds(e.getValue()));
      }
      System.out.println();
      System.out.println("Where Keel's time goes (medians):");
      for (String v : activity.keySet()) {
        double total = Machine.median(wall.get(v));
        double act = Machine.median(activity.get(v));
        double tr = Machine.median(trainer.get(v));
        System.out.printf(
            Locale.ROOT,
            "  %-9s total %.2f s = training activity %.2f s (trainer %.2f s incl. checkpoints + validation;"
                + " data read and request handling %.2f s) + workflows, catalog, GC %.2f s%n",
            v,
            total,
            act,
            tr,
            act - tr,
            total - act);
      }
      System.out.println();
      System.out.println(
          "validation metrics (must be equal across variants: same math, same seed):");
      metrics.forEach((k, v) -> System.out.println("  " + k + ": " + v));
      System.out.println("load averages before: " + loadBefore + ", after: " + loadAfter);
    }
    System.exit(0);
  }

  /**
   * CPU time of this whole JVM: for Keel that is the Temporal server, the workers and the trainer.
   */
  private static long cpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void record(
      Map<String, List<Double>> activity,
      String v,
      double a,
      Map<String, List<Double>> trainer,
      double t) {
    activity.computeIfAbsent(v, k -> new ArrayList<>()).add(a);
    trainer.computeIfAbsent(v, k -> new ArrayList<>()).add(t);
  }

  private static String metricsOf(ExperimentResult r) {
    if (r.getState().getState() != ExperimentState.State.COMPLETED) {
      throw new IllegalStateException(
          "experiment ended " + r.getState().getState() + ": " + r.getState());
    }
    Map<String, Double> m = r.getBestCheckpoint().getMetricsMap();
    return String.format(
        Locale.ROOT,
        "accuracy %.6f loss %.8f",
        m.get(Metrics.VALIDATION_ACCURACY),
        m.get(Metrics.VALIDATION_LOSS));
  }

  static ExperimentResult runKeel(WorkflowClient client, ExperimentConfig config, String pool) {
    return client
        .newUntypedWorkflowStub(runKeelId(client, config, pool))
        .getResult(ExperimentResult.class);
  }

  static String runKeelId(WorkflowClient client, ExperimentConfig config, String pool) {
    ExperimentConfig c =
        config.toBuilder()
            .setResources(config.getResources().toBuilder().setResourcePool(pool))
            .build();
    return ExperimentLauncher.start(client, ExperimentRequest.newBuilder().setConfig(c).build());
  }

  /** The workflow's history events with milliseconds since its first event (--profile). */
  static void printTimeline(WorkflowClient client, String workflowId) {
    var events = client.fetchHistory(workflowId).getEvents();
    long t0 = Timestamps.toMillis(events.get(0).getEventTime());
    long prev = t0;
    System.out.println(
        "timeline of " + workflowId + " (ms since start, +ms since previous event):");
    for (var e : events) {
      long t = Timestamps.toMillis(e.getEventTime());
      String what = e.getEventType().name().replace("EVENT_TYPE_", "");
      if (e.hasActivityTaskScheduledEventAttributes()) {
        what += " " + e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
      }
      System.out.printf(Locale.ROOT, "  %7d  +%6d  %s%n", t - t0, t - prev, what);
      prev = t;
    }
  }

  /**
   * The same math as {@code Trainer} without Keel: seeded init, batch b = {@link BatchOrder}(seed,
   * b), libtorch re-seeded per batch (dropout), one sub-manager per step, then validation on the
   * held-out rows.
   */
  static Evaluation bareLoop(LabeledImages all, long batches, int threads) {
    Engine.getInstance();
    if (JniUtils.getNumThreads() != threads) {
      JniUtils.setNumThreads(threads);
    }
    FashionCnn cnn = new FashionCnn();
    Map<String, Value> hp = new TreeMap<>();
    hp.put("lr", num(0.002));
    hp.put("batch_size", num(128));
    hp.put("width", num(16));
    hp.put("hidden", num(128));
    hp.put("dropout", num(0.25));
    hp.put("optimizer", Value.newBuilder().setStringValue("adam").build());
    Hyperparameters hyper = Hyperparameters.resolve(cnn, Map.of(), hp);
    TrainValidationSplit split = TrainValidationSplit.of(all, ConfigDefaults.VALIDATION_FRACTION);
    BatchOrder order = new BatchOrder(TRIAL_SEED, split.train().size(), 128);
    try (TrainableModel model = TrainableModel.initialize(cnn, hyper, TRIAL_SEED)) {
      for (long b = 0; b < batches; b++) {
        int[] rows = order.indices(b);
        Engine.getInstance().setRandomSeed(Seeds.batch(TRIAL_SEED, b));
        try (NDManager step = model.manager().newSubManager()) {
          float loss =
              model.trainStep(
                  Batches.inputs(step, split.train(), rows),
                  Batches.labels(step, split.train(), rows));
          if (!Float.isFinite(loss)) {
            throw new IllegalStateException("loss " + loss + " at batch " + b);
          }
        }
      }
      return Evaluation.of(model, split.validation());
    }
  }

  private static Value num(double v) {
    return Value.newBuilder().setNumberValue(v).build();
  }

  /**
   * A training worker on its own pool, wired like {@code keel worker --roles TRAIN} (the real
   * {@link TrainingActivitiesImpl}, 1 s heartbeats, the storage root's checkpoints), with the
   * activity's wall time recorded.
   */
  static final class TrainWorker implements AutoCloseable {
    final String pool;
    final WorkerFactory factory;
    volatile double activitySeconds;
    volatile double trainerSeconds;

    private TrainWorker(String pool, WorkerFactory factory) {
      this.pool = pool;
      this.factory = factory;
    }

    static TrainWorker start(WorkflowClient client, StorageRoot root, String pool, int threads) {
      WorkerFactory factory = WorkerFactory.newInstance(client);
      TrainWorker w = new TrainWorker(pool, factory);
      TrainingActivitiesImpl impl =
          new TrainingActivitiesImpl(
              new DeltaDatasetReader(),
              ModelZoo.withBuiltIns(),
              Duration.ofSeconds(1),
              new TrainingActivitiesImpl.WorkerDefaults(root.checkpoints(), threads));
      TrainingActivities timed = new Timed(impl, w);
      factory
          .newWorker(
              TaskQueues.train(pool),
              WorkerOptions.newBuilder()
                  .setMaxConcurrentActivityExecutionSize(1)
                  .setStickyQueueScheduleToStartTimeout(Duration.ZERO)
                  .build())
          .registerActivitiesImplementations(timed);
      factory.start();
      return w;
    }

    /** Delegates to the real activity and adds up its wall time and the trainer's own. */
    static final class Timed implements TrainingActivities {
      private final TrainingActivities delegate;
      private final TrainWorker sink;

      Timed(TrainingActivities delegate, TrainWorker sink) {
        this.delegate = delegate;
        this.sink = sink;
      }

      @Override
      public TrainResult train(TrainRequest request) {
        long t0 = System.nanoTime();
        TrainResult r = delegate.train(request);
        synchronized (sink) {
          sink.activitySeconds += (System.nanoTime() - t0) / 1e9;
          sink.trainerSeconds += r.getSeconds();
        }
        return r;
      }
    }

    void reset() {
      activitySeconds = 0;
      trainerSeconds = 0;
    }

    @Override
    public void close() {
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
