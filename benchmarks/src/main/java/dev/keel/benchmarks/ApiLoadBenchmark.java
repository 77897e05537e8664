package dev.keel.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.service.api.ApiServer;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.catalog.ExperimentList;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The API under load on the dev stack: {@code --experiments} experiments of tiny real trials
 * (random search of {@code --trials} trials x {@code --batches} batches of {@code fashion_cnn},
 * width 4, batch size 32) submitted at once through {@code POST /api/v1/experiments}, while {@code
 * --readers} threads keep calling {@code GET /api/v1/experiments}, {@code GET
 * /api/v1/experiments/{id}} and {@code GET /api/v1/experiments/{id}/view}. Then it checks that
 * nothing was lost: every experiment COMPLETED and every one of its trials in the catalog ({@code
 * _keel/trials}) with state COMPLETED. Exit 1 if anything was lost or did not finish in time, or if
 * any API call did not answer 2xx.
 *
 * <p>The stack is {@code keel dev --temporal embedded}'s, with training in child JVMs as on a real
 * machine: the Java test server on loopback, the control, ETL and inference workers and the REST
 * API in this JVM, and {@code --train-workers} processes {@code keel worker --roles TRAIN} (one
 * training slot each).
 *
 * <pre>
 * ApiLoadBenchmark [--experiments 50] [--trials 2] [--batches 10] [--train-workers 2] [--train-threads 1]
 *     [--readers 4] [--think-ms 100] [--timeout-minutes 30] [--storage DIR] [--data DIR]
 * </pre>
 */
public final class ApiLoadBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private ApiLoadBenchmark() {}

  /** Latencies of one endpoint, in milliseconds, and the calls that did not answer 2xx. */
  static final class Calls {
    final List<Double> millis = Collections.synchronizedList(new ArrayList<>());
    final Map<String, Integer> errors = new ConcurrentHashMap<>();

    void ok(double ms) {
      millis.add(ms);
    }

    void error(String what) {
      errors.merge(what.length() > 160 ? what.substring(0, 160) + "…" : what, 1, Integer::sum);
    }

    int errorCount() {
      return errors.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  public static void main(String[] args) throws Exception {
    int experiments = 50;
    int trials = 2;
    int batches = 10;
    int trainWorkers = 2;
    int threads = 1;
    int readers = 4;
    int thinkMs = 100;
    double timeoutMinutes = 30;
    Path storage = null;
    Path data = Path.of("/usr/share/datasets/fashion-mnist");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--experiments" -> experiments = Integer.parseInt(args[++i]);
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--batches" -> batches = Integer.parseInt(args[++i]);
        case "--train-workers" -> trainWorkers = Integer.parseInt(args[++i]);
        case "--train-threads" -> threads = Integer.parseInt(args[++i]);
        case "--readers" -> readers = Integer.parseInt(args[++i]);
        case "--think-ms" -> thinkMs = Integer.parseInt(args[++i]);
        case "--timeout-minutes" -> timeoutMinutes = Double.parseDouble(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--experiments N --trials N"
                    + " --batches N --train-workers N --train-threads N --readers N --think-ms MS --timeout-minutes M"
                    + " --storage DIR --data DIR)");
      }
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-bench-load");
    }
    storage = storage.toAbsolutePath();
    StorageRoot root = StorageRoot.of(storage.toString());
    String loadBefore = Machine.loadAverages();
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + loadBefore);
    System.out.printf(
        Locale.ROOT,
        "%d experiments x %d trials x %d batches (fashion_cnn width 4, batch 32); %d training"
            + " worker JVM(s) x %d thread(s); %d readers (think %d ms); storage %s%n",
        experiments,
        trials,
        batches,
        trainWorkers,
        threads,
        readers,
        thinkMs,
        storage);
    long tIngest = System.nanoTime();
    FashionData.ingest(root, data);
    System.out.printf(
        Locale.ROOT,
        "ingested Fashion-MNIST as %s in %.1f s%n",
        FashionData.TABLE,
        (System.nanoTime() - tIngest) / 1e9);

    EnumSet<Role> local =
        trainWorkers == 0
            ? EnumSet.allOf(Role.class)
            : EnumSet.of(Role.CONTROL, Role.ETL, Role.INFER);
    Map<String, Calls> calls = new LinkedHashMap<>();
    for (String endpoint :
        List.of(
            "POST /experiments",
            "GET /experiments",
            "GET /experiments/{id}",
            "GET /experiments/{id}/view")) {
      calls.put(endpoint, new Calls());
    }
    List<String> ids = new CopyOnWriteArrayList<>();
    Map<String, ExperimentResult> results = new ConcurrentHashMap<>();
    Map<String, String> failures = new ConcurrentHashMap<>();
    double wall;
    double submitWall;
    int readerCallsDuringLoad;
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
        KeelWorkerHost workers =
            KeelWorkerHost.start(
                WorkerHostOptions.newBuilder()
                    .setTemporalAddress(temporal.address())
                    .setStorageRoot(root)
                    .optDevServer(true)
                    .optTrainThreads(threads)
                    .optRoles(local)
                    .build());
        WorkerProcesses pool =
            trainWorkers == 0
                ? null
                : WorkerProcesses.start(
                    trainWorkers,
                    threads,
                    temporal.address(),
                    root.toString(),
                    storage.resolve("logs"));
        ApiServer api = ApiServer.start("127.0.0.1", 0, workers.client(), root)) {
      if (pool != null) {
        pool.awaitPolling(180_000);
      }
      String url = api.url() + "/api/v1";
      System.out.println("Temporal (Java test server) " + temporal.address() + ", API " + url);
      WorkflowClient client = workers.client();

      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService readerPool = Executors.newFixedThreadPool(Math.max(1, readers));
      int think = thinkMs;
      for (int r = 0; r < readers; r++) {
        readerPool.execute(() -> read(url, ids, calls, stop, think));
      }

      // every submission starts at the same instant
      ExecutorService submitters = Executors.newFixedThreadPool(experiments);
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<Void>> submitted = new ArrayList<>();
      for (int i = 0; i < experiments; i++) {
        String yaml = config(i, trials, batches);
        submitted.add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    go.await();
                    long t = System.nanoTime();
                    HttpResponse<String> created =
                        HTTP.send(
                            HttpRequest.newBuilder(URI.create(url + "/experiments"))
                                .timeout(Duration.ofSeconds(60))
                                .header("Content-Type", "application/yaml")
                                .POST(HttpRequest.BodyPublishers.ofString(yaml))
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    double ms = (System.nanoTime() - t) / 1e6;
                    if (created.statusCode() == 202) {
                      calls.get("POST /experiments").ok(ms);
                      ids.add(JSON.readTree(created.body()).get("experiment_id").asText());
                    } else {
                      calls
                          .get("POST /experiments")
                          .error(created.statusCode() + " " + created.body());
                    }
                  } catch (Exception e) {
                    calls.get("POST /experiments").error(e.toString());
                  }
                },
                submitters));
      }
      long t0 = System.nanoTime();
      go.countDown();
      CompletableFuture.allOf(submitted.toArray(CompletableFuture[]::new)).join();
      submitWall = (System.nanoTime() - t0) / 1e9;
      submitters.shutdown();
      System.out.printf(
          Locale.ROOT,
          "%7.1f s  %d of %d experiments accepted (load %s)%n",
          submitWall,
          ids.size(),
          experiments,
          Machine.loadAverages());

      List<CompletableFuture<?>> done = new ArrayList<>();
      for (String id : ids) {
        done.add(
            client
                .newUntypedWorkflowStub(id)
                .getResultAsync(ExperimentResult.class)
                .whenComplete(
                    (r, e) -> {
                      if (e != null) {
                        failures.put(id, e.toString());
                      } else {
                        results.put(id, r);
                      }
                    }));
      }
      CompletableFuture<Void> all = CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
      long deadline = t0 + (long) (timeoutMinutes * 60e9);
      double lastPrint = 0;
      while (!all.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(1000);
        double t = (System.nanoTime() - t0) / 1e9;
        if (t - lastPrint >= 30) {
          lastPrint = t;
          System.out.printf(
              Locale.ROOT,
              "%7.1f s  %d of %d experiments ended; %d reader calls so far (load %s)%n",
              t,
              results.size() + failures.size(),
              ids.size(),
              calls.values().stream().skip(1).mapToInt(c -> c.millis.size() + c.errorCount()).sum(),
              Machine.loadAverages());
        }
      }
      wall = (System.nanoTime() - t0) / 1e9;
      stop.set(true);
      readerPool.shutdown();
      readerPool.awaitTermination(60, TimeUnit.SECONDS);
      readerCallsDuringLoad =
          calls.values().stream().skip(1).mapToInt(c -> c.millis.size() + c.errorCount()).sum();
      System.out.printf(
          Locale.ROOT,
          "%7.1f s  %d of %d experiments ended%s%n",
          wall,
          results.size() + failures.size(),
          ids.size(),
          all.isDone() ? "" : " — TIMED OUT after " + timeoutMinutes + " min");
    }

    // Nothing lost: every experiment COMPLETED, in Temporal and in the catalog, with all its trials
    // COMPLETED.
    Map<String, Map<Long, CatalogTrials.Trial>> catalog = CatalogTrials.read(root);
    Map<String, String> experimentRows = new HashMap<>();
    for (ExperimentList.Summary e :
        new ExperimentList(root).page(Optional.empty(), Optional.empty(), 0, 1000).experiments()) {
      experimentRows.put(e.experimentId(), e.state());
    }
    int completed = 0;
    int trialsInCatalog = 0;
    List<String> lost = new ArrayList<>();
    for (int i = ids.size(); i < experiments; i++) {
      lost.add("submission " + (i + 1) + " was not accepted");
    }
    for (String id : ids) {
      ExperimentResult r = results.get(id);
      if (r == null) {
        lost.add(id + ": " + Optional.ofNullable(failures.get(id)).orElse("did not end in time"));
        continue;
      }
      if (r.getState().getState() != ExperimentState.State.COMPLETED) {
        lost.add(id + ": ended " + r.getState().getState() + " " + r.getState().getError());
      } else {
        completed++;
      }
      String row = experimentRows.get(id);
      if (!"COMPLETED".equals(row)) {
        lost.add(id + ": catalog experiments row " + (row == null ? "missing" : row));
      }
      List<CatalogTrials.Trial> rows = List.copyOf(catalog.getOrDefault(id, Map.of()).values());
      long ok = rows.stream().filter(t -> "COMPLETED".equals(t.state())).count();
      trialsInCatalog += (int) ok;
      if (ok != trials || rows.size() != trials) {
        lost.add(
            id
                + ": catalog has "
                + rows.size()
                + " trials, "
                + ok
                + " COMPLETED, expected "
                + trials
                + " "
                + rows.stream().map(t -> t.trialId() + "=" + t.state()).toList());
      }
    }

    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "API under load: %d experiments x %d trials x %d batches submitted at once, %d"
            + " training worker(s), %d readers%n",
        experiments,
        trials,
        batches,
        trainWorkers,
        readers);
    System.out.printf(
        Locale.ROOT,
        "wall time (first submission to last experiment ended): %.1f s (%.1f min);"
            + " all %d submissions answered in %.2f s; %d reader calls during the load%n",
        wall,
        wall / 60,
        experiments,
        submitWall,
        readerCallsDuringLoad);
    System.out.println("| endpoint | calls | errors | p50 ms | p99 ms | max ms |");
    System.out.println("|---|---|---|---|---|---|");
    for (Map.Entry<String, Calls> e : calls.entrySet()) {
      List<Double> v = new ArrayList<>(e.getValue().millis);
      Collections.sort(v);
      System.out.printf(
          Locale.ROOT,
          "| `%s` | %d | %d | %.0f | %.0f | %.0f |%n",
          e.getKey(),
          v.size() + e.getValue().errorCount(),
          e.getValue().errorCount(),
          percentile(v, 50),
          percentile(v, 99),
          v.isEmpty() ? Double.NaN : v.get(v.size() - 1));
    }
    for (Map.Entry<String, Calls> e : calls.entrySet()) {
      e.getValue()
          .errors
          .forEach(
              (what, n) -> System.out.println("  error " + e.getKey() + " x" + n + ": " + what));
    }
    System.out.printf(
        Locale.ROOT,
        "experiments COMPLETED: %d of %d; trials COMPLETED in the catalog (_keel/trials): %d of %d%n",
        completed,
        experiments,
        trialsInCatalog,
        experiments * trials);
    System.out.println(
        "load averages before: " + loadBefore + ", after: " + Machine.loadAverages());
    int apiErrors = calls.values().stream().mapToInt(Calls::errorCount).sum();
    if (lost.isEmpty()) {
      System.out.println("nothing lost");
    } else {
      System.out.println("LOST (" + lost.size() + "):");
      lost.forEach(l -> System.out.println("  " + l));
    }
    if (apiErrors > 0) {
      System.out.println("API ERRORS: " + apiErrors + " calls did not answer 2xx (listed above)");
    }
    System.exit(lost.isEmpty() && apiErrors == 0 ? 0 : 1);
  }

  /** One reader: list, describe or view of a random submitted experiment, until stopped. */
  private static void read(
      String url, List<String> ids, Map<String, Calls> calls, AtomicBoolean stop, int thinkMs) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!stop.get()) {
      try {
        String endpoint;
        String path;
        int kind = random.nextInt(3);
        if (kind == 0 || ids.isEmpty()) {
          endpoint = "GET /experiments";
          path = "/experiments?limit=" + (random.nextBoolean() ? 50 : 100);
        } else {
          String id = ids.get(random.nextInt(ids.size()));
          endpoint = kind == 1 ? "GET /experiments/{id}" : "GET /experiments/{id}/view";
          path = "/experiments/" + id + (kind == 1 ? "" : "/view");
        }
        long t = System.nanoTime();
        try {
          HttpResponse<String> r =
              HTTP.send(
                  HttpRequest.newBuilder(URI.create(url + path))
                      .timeout(Duration.ofSeconds(60))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          double ms = (System.nanoTime() - t) / 1e6;
          if (r.statusCode() == 200) {
            JsonNode body = JSON.readTree(r.body());
            if (body.isObject()) {
              calls.get(endpoint).ok(ms);
            } else {
              calls.get(endpoint).error("200 but not a JSON object: " + r.body());
            }
          } else {
            calls.get(endpoint).error(r.statusCode() + " " + r.body());
          }
        } catch (IOException e) {
          calls.get(endpoint).error(e.toString());
        }
        if (thinkMs > 0) {
          Thread.sleep(thinkMs);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        calls.get("GET /experiments").error("reader: " + e);
      }
    }
  }

  /** Nearest-rank percentile of sorted values. */
  static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  static String config(int i, int trials, int batches) {
    return """
        name: load-%d
        data: {table: fashion_mnist}
        hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 32, width: 4, optimizer: adam}
        searcher: {name: random, metric: validation_loss, smaller_is_better: true, max_trials: %d, max_length: {batches: %d}}
        reproducibility: {seed: %d}
        model: {name: fashion_cnn}
        """
        .formatted(i + 1, trials, batches, i + 1);
  }
}
