package dev.keel.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TrialState;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.experiment.ExperimentTable;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Figure 2, a real search on Fashion-MNIST: adaptive ASHA versus random search with the same {@code
 * max_trials}, {@code max_length} and space (learning rate, optimizer, width, dropout), each an
 * {@code Experiment} workflow on a loopback Temporal server whose trials train on {@code --workers}
 * child JVMs ({@code keel worker --roles TRAIN --train-threads 1}).
 *
 * <p>Reports per searcher: trials, batches trained (sum of the trials' final lengths), wall time,
 * the best validation accuracy and when it was first reached (polled every 0.5 s), the time to
 * reach the lower of the two searches' bests, and the test-split accuracy of the best checkpoint.
 * With {@code --curves-out FILE} it writes the random search's validation curves in the
 * recorded-curve format of {@code search-strategies} (see its README).
 *
 * <pre>
 * FashionSearchBenchmark [--workers 2] [--train-threads 1] [--trials 16] [--max-length 1024]
 *     [--divisor 4] [--rungs 3] [--validation-period 128] [--searchers adaptive_asha,random]
 *     [--seed 42] [--data DIR] [--storage DIR] [--curves-out FILE]
 * </pre>
 */
public final class FashionSearchBenchmark {
  private static final String SPACE =
      """
      hyperparameters:
        lr: {type: log, minval: -4, maxval: -1.5, base: 10}
        optimizer: {type: categorical, vals: [adam, sgd]}
        width: {type: int, minval: 8, maxval: 24}
        dropout: {type: double, minval: 0.0, maxval: 0.5}
        batch_size: 128
        hidden: 128
      """;
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private FashionSearchBenchmark() {}

  /** What one search did. */
  record Run(
      String searcher,
      String experimentId,
      ExperimentResult result,
      double wallSeconds,
      List<double[]> bestOverTime,
      Map<Long, List<double[]>> trialProgress,
      double testAccuracy) {

    ExperimentState state() {
      return result.getState();
    }

    long batches() {
      return state().getTrialsList().stream()
          .mapToLong(t -> TrainingLength.of(t.getCompletedLength()).units())
          .sum();
    }

    double best() {
      return state().getBestMetric();
    }

    /** Seconds from the start until the best so far first reached {@code target}; NaN if never. */
    double timeTo(double target) {
      for (double[] p : bestOverTime) {
        if (p[1] >= target) {
          return p[0];
        }
      }
      return Double.NaN;
    }
  }

  public static void main(String[] args) throws Exception {
    int workers = 2;
    int threads = 1;
    int trials = 16;
    long maxLength = 1024;
    int divisor = 4;
    int rungs = 3;
    long validationPeriod = 128;
    long seed = 42;
    List<String> searchers = List.of("adaptive_asha", "random");
    Path data = Path.of(DemoRequest.DEFAULT_DATA);
    Path storage = null;
    Path curvesOut = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--workers" -> workers = Integer.parseInt(args[++i]);
        case "--train-threads" -> threads = Integer.parseInt(args[++i]);
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--max-length" -> maxLength = Long.parseLong(args[++i]);
        case "--divisor" -> divisor = Integer.parseInt(args[++i]);
        case "--rungs" -> rungs = Integer.parseInt(args[++i]);
        case "--validation-period" -> validationPeriod = Long.parseLong(args[++i]);
        case "--searchers" -> searchers = List.of(args[++i].split(","));
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        case "--curves-out" -> curvesOut = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-bench-search");
    }
    String loadBefore = Machine.loadAverages();
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + loadBefore);
    StorageRoot root = StorageRoot.of(storage.toAbsolutePath().toString());
    IngestResult table = FashionData.ingest(root, data);
    LabeledImages test = new DeltaDatasetReader().read(table.getTable(), "test");
    System.out.printf(
        Locale.ROOT,
        "table %s v%d; %d training workers x %d thread(s); %d trials, max_length %d batches,"
            + " validation every %d batches; ASHA divisor %d, %d rungs%n",
        table.getTable().getUri(),
        table.getTable().getVersion(),
        workers,
        threads,
        trials,
        maxLength,
        validationPeriod,
        divisor,
        rungs);

    Map<String, Run> runs = new LinkedHashMap<>();
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
        KeelWorkerHost control =
            KeelWorkerHost.start(
                WorkerHostOptions.newBuilder()
                    .setTemporalAddress(temporal.address())
                    .setStorageRoot(root)
                    .optDevServer(true)
                    .optRoles(EnumSet.of(Role.CONTROL))
                    .build());
        WorkerProcesses pool =
            WorkerProcesses.start(
                workers, threads, temporal.address(), root.toString(), storage.resolve("logs"))) {
      pool.awaitPolling(180_000);
      WorkflowClient client = control.client();
      System.out.println(
          "workers polling; warm-up (discarded): random search, "
              + 2 * workers
              + " trials x 32 batches");
      run(
          client,
          config("warmup", "random", 2 * workers, 32, workers, divisor, rungs, 0, seed + 1000),
          test,
          null);
      for (String searcher : searchers) {
        ExperimentConfig c =
            config(
                "fashion-" + searcher.replace('_', '-'),
                searcher,
                trials,
                maxLength,
                workers,
                divisor,
                rungs,
                validationPeriod,
                seed);
        System.out.printf(
            Locale.ROOT, "%s: starting (load %s)%n", searcher, Machine.loadAverages());
        Run r = run(client, c, test, searcher);
        runs.put(searcher, r);
        System.out.print(ExperimentTable.render(r.state()));
        System.out.printf(
            Locale.ROOT,
            "%s: %.0f s, %d batches, best validation accuracy %.4f, test accuracy %.4f (load %s)%n",
            searcher,
            r.wallSeconds(),
            r.batches(),
            r.best(),
            r.testAccuracy(),
            Machine.loadAverages());
      }
    }
    String loadAfter = Machine.loadAverages();

    double common = runs.values().stream().mapToDouble(Run::best).min().orElse(Double.NaN);
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Search on Fashion-MNIST: %d trials, max_length %d batches, %d workers x %d thread(s),"
            + " validation every %d batches%n",
        trials,
        maxLength,
        workers,
        threads,
        validationPeriod);
    System.out.printf(
        Locale.ROOT,
        "| %-13s | %6s | %9s | %7s | %8s | %11s | %12s | %8s |%n",
        "searcher",
        "trials",
        "batches",
        "wall s",
        "best val",
        "t(best) s",
        String.format(Locale.ROOT, "t(%.4f) s", common),
        "test acc");
    System.out.println(
        "|---------------|--------|-----------|---------|----------|-------------|--------------|----------|");
    for (Run r : runs.values()) {
      System.out.printf(
          Locale.ROOT,
          "| %-13s | %6d | %9d | %7.0f | %8.4f | %11.0f | %12.0f | %8.4f |%n",
          r.searcher(),
          r.state().getTrialsCount(),
          r.batches(),
          r.wallSeconds(),
          r.best(),
          r.timeTo(r.best()),
          r.timeTo(common),
          r.testAccuracy());
    }
    if (runs.containsKey("adaptive_asha") && runs.containsKey("random")) {
      Run a = runs.get("adaptive_asha");
      Run b = runs.get("random");
      System.out.printf(
          Locale.ROOT,
          "ASHA / random: compute %.3f, wall %.3f, time to own best %.3f, time to %.4f %.3f%n",
          (double) a.batches() / b.batches(),
          a.wallSeconds() / b.wallSeconds(),
          a.timeTo(a.best()) / b.timeTo(b.best()),
          common,
          a.timeTo(common) / b.timeTo(common));
    }
    System.out.println("load averages before: " + loadBefore + ", after: " + loadAfter);
    if (curvesOut != null && runs.containsKey("random")) {
      writeCurves(runs.get("random"), curvesOut, maxLength, workers, threads);
      System.out.println("curves of the random search: " + curvesOut);
    }
    System.exit(0);
  }

  static ExperimentConfig config(
      String name,
      String searcher,
      int trials,
      long maxLength,
      int concurrent,
      int divisor,
      int rungs,
      long validationPeriod,
      long seed) {
    StringBuilder y = new StringBuilder();
    y.append("name: ").append(name).append('\n');
    y.append("data: {table: fashion_mnist}\n");
    y.append(SPACE);
    y.append("searcher: {name: ")
        .append(searcher)
        .append(", metric: validation_accuracy, smaller_is_better: false")
        .append(", max_trials: ")
        .append(trials)
        .append(", max_length: {batches: ")
        .append(maxLength)
        .append('}')
        .append(", max_concurrent_trials: ")
        .append(concurrent);
    if (searcher.equals("adaptive_asha")) {
      y.append(", divisor: ").append(divisor).append(", max_rungs: ").append(rungs);
    }
    y.append("}\n");
    if (validationPeriod > 0) {
      y.append("min_validation_period: {batches: ").append(validationPeriod).append("}\n");
    }
    y.append("reproducibility: {seed: ").append(seed).append("}\n");
    y.append("model: {name: fashion_cnn}\n");
    return ExperimentConfigLoaders.experimentLoader().fromYaml(y.toString());
  }

  static Run run(WorkflowClient client, ExperimentConfig config, LabeledImages test, String label)
      throws Exception {
    long t0 = System.nanoTime();
    String id =
        ExperimentLauncher.start(client, ExperimentRequest.newBuilder().setConfig(config).build());
    CompletableFuture<ExperimentResult> done =
        client.newUntypedWorkflowStub(id).getResultAsync(ExperimentResult.class);
    List<double[]> bestOverTime = new ArrayList<>();
    Map<Long, List<double[]>> progress = new TreeMap<>();
    long lastPrint = System.nanoTime();
    while (!done.isDone()) {
      Thread.sleep(500);
      ExperimentState s;
      try {
        s = ExperimentLauncher.state(client, id);
      } catch (RuntimeException e) {
        continue; // closing or continuing as new
      }
      double t = (System.nanoTime() - t0) / 1e9;
      if (s.hasBestMetric()
          && (bestOverTime.isEmpty()
              || s.getBestMetric() > bestOverTime.get(bestOverTime.size() - 1)[1])) {
        bestOverTime.add(new double[] {t, s.getBestMetric()});
      }
      for (TrialState tr : s.getTrialsList()) {
        List<double[]> p = progress.computeIfAbsent(tr.getTrialId(), k -> new ArrayList<>());
        if (p.isEmpty()
            || p.get(p.size() - 1)[1] != TrainingLength.of(tr.getCompletedLength()).units()) {
          p.add(new double[] {t, TrainingLength.of(tr.getCompletedLength()).units()});
        }
      }
      if (label != null && System.nanoTime() - lastPrint > 30e9) {
        lastPrint = System.nanoTime();
        long batches =
            s.getTrialsList().stream()
                .mapToLong(tr -> TrainingLength.of(tr.getCompletedLength()).units())
                .sum();
        System.out.printf(
            Locale.ROOT,
            "  %s %4.0f s: %d trials, %d batches, best %s (load %s)%n",
            label,
            t,
            s.getTrialsCount(),
            batches,
            s.hasBestMetric() ? String.format(Locale.ROOT, "%.4f", s.getBestMetric()) : "-",
            Machine.loadAverages());
      }
    }
    ExperimentResult result = done.get(1, TimeUnit.MINUTES);
    double wall = (System.nanoTime() - t0) / 1e9;
    if (result.getState().getState() != ExperimentState.State.COMPLETED) {
      throw new IllegalStateException(
          id + " ended " + result.getState().getState() + ": " + result.getState().getError());
    }
    ExperimentState s = result.getState();
    if (s.hasBestMetric()
        && (bestOverTime.isEmpty()
            || s.getBestMetric() > bestOverTime.get(bestOverTime.size() - 1)[1])) {
      bestOverTime.add(new double[] {wall, s.getBestMetric()});
    }
    double testAccuracy = Double.NaN;
    if (label != null) {
      CheckpointRef best = result.getBestCheckpoint();
      try (CheckpointPredictor p =
          CheckpointPredictor.open(best.getUri(), ModelZoo.withBuiltIns(), 2)) {
        testAccuracy = p.predict(test).accuracy(test.labels());
      }
    }
    return new Run(
        config.getSearcher().getName(), id, result, wall, bestOverTime, progress, testAccuracy);
  }

  /** The run's validation curves in search-strategies' recorded-curve format. */
  static void writeCurves(Run run, Path out, long maxLength, int workers, int threads)
      throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put(
        "description",
        String.format(
            Locale.ROOT,
            "Measured by FashionSearchBenchmark (%s): validation accuracy of a random search on Fashion-MNIST with fashion_cnn,"
                + " batch size 128, %d batches max, validated every 128 batches, %d CPU workers x %d thread(s);"
                + " seconds_per_unit is wall time per batch including validation and checkpoints",
            LocalDate.now(ZoneId.systemDefault()),
            maxLength,
            workers,
            threads));
    root.put("metric", "validation_accuracy");
    root.put("smaller_is_better", false);
    root.put("unit", "batches");
    root.put("noise", 0.0);
    ObjectNode hps = root.putObject("hyperparameters");
    ExperimentConfig space =
        ExperimentConfigLoaders.experimentLoader()
            .fromYaml(
                "data: {table: t}\nsearcher: {name: random, metric: m, max_trials: 1,"
                    + " max_length: {batches: 1}}\n"
                    + SPACE);
    space.getHyperparametersMap().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> hps.set(e.getKey(), proto(e.getValue())));
    ArrayNode curves = root.putArray("curves");
    for (TrialState t : run.state().getTrialsList()) {
      List<double[]> points = new ArrayList<>();
      for (CheckpointRef c : t.getCheckpointsList()) {
        if (c.containsMetrics(CheckpointMetrics.LENGTH)
            && c.containsMetrics(CheckpointMetrics.SEARCHER_METRIC)) {
          points.add(
              new double[] {
                c.getMetricsOrThrow(CheckpointMetrics.LENGTH),
                c.getMetricsOrThrow(CheckpointMetrics.SEARCHER_METRIC)
              });
        }
      }
      if (points.isEmpty()) {
        continue;
      }
      ObjectNode curve = curves.addObject();
      ObjectNode hp = curve.putObject("hparams");
      new TreeMap<>(t.getHparamsMap()).forEach((k, v) -> hp.set(k, proto(v)));
      curve.put(
          "seconds_per_unit",
          Math.round(secondsPerBatch(run.trialProgress().get(t.getTrialId())) * 1e4) / 1e4);
      ArrayNode pts = curve.putArray("points");
      for (double[] p : points) {
        pts.addArray().add((long) p[0]).add(Math.round(p[1] * 1e4) / 1e4);
      }
    }
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, JSON.writeValueAsString(root) + "\n");
  }

  /** Median wall seconds per batch between consecutive validations seen by the poller. */
  private static double secondsPerBatch(List<double[]> progress) {
    List<Double> rates = new ArrayList<>();
    for (int i = 1; progress != null && i < progress.size(); i++) {
      double dl = progress.get(i)[1] - progress.get(i - 1)[1];
      if (dl > 0 && progress.get(i - 1)[1] > 0) {
        rates.add((progress.get(i)[0] - progress.get(i - 1)[0]) / dl);
      }
    }
    return rates.isEmpty() ? Double.NaN : Machine.median(rates);
  }

  private static JsonNode proto(MessageOrBuilder m) {
    try {
      return JSON.readTree(
          JsonFormat.printer()
              .preservingProtoFieldNames()
              .omittingInsignificantWhitespace()
              .print(m));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
