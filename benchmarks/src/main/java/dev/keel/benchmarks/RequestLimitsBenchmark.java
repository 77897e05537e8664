package dev.keel.benchmarks;

import dev.keel.service.api.ApiServer;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The requests that could take the API server down before its limits (issue 23), each sent {@code
 * --reps} times to a real {@code ApiServer} in this JVM: the answer's status and times (median,
 * max), and the server's heap after a full GC before the first request and after the last.
 *
 * <pre>
 * java -Xmx2g -cp "$CP" dev.keel.benchmarks.RequestLimitsBenchmark --reps 20
 * </pre>
 *
 * Options: {@code --reps N} (20), {@code --storage DIR} (a temporary directory).
 */
public final class RequestLimitsBenchmark {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String CONFIG =
      """
      name: limits
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -4, maxval: -2, base: 10}
        width: {type: int, minval: 8, maxval: 64}
      searcher: {name: adaptive_asha, metric: validation_loss, smaller_is_better: true, max_trials: 16,
                 max_length: {batches: 2560}}
      """;

  private RequestLimitsBenchmark() {}

  public static void main(String[] args) throws Exception {
    int reps = 20;
    Path storage = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-limits");
    }
    Map<String, String[]> probes = new LinkedHashMap<>();
    probes.put(
        "preview, max_trials 1e9",
        new String[] {
          "/experiments/preview", CONFIG.replace("max_trials: 16", "max_trials: 1000000000")
        });
    probes.put(
        "preview, 9 MB YAML",
        new String[] {"/experiments/preview", CONFIG + "# " + "x".repeat(9_000_000) + "\n"});
    probes.put(
        "create, 9 MB YAML",
        new String[] {"/experiments", CONFIG + "# " + "x".repeat(9_000_000) + "\n"});
    probes.put(
        "pipeline, 9 MB YAML",
        new String[] {"/pipelines", "target_table: t\n# " + "x".repeat(9_000_000) + "\n"});
    probes.put(
        "preview, nested 10,000 deep",
        new String[] {
          "/experiments/preview",
          CONFIG.replace(
              "width: {type: int",
              "opt: {type: categorical, vals: "
                  + "[".repeat(10_000)
                  + "]".repeat(10_000)
                  + "}\n  width: {type: int")
        });
    probes.put(
        "preview, 1 MiB YAML (the most)", new String[] {"/experiments/preview", oneMebibyte()});
    probes.put(
        "preview, 100,000 ASHA trials",
        new String[] {
          "/experiments/preview", CONFIG.replace("max_trials: 16", "max_trials: 100000")
        });
    probes.put(
        "preview, 100,000 TPE trials",
        new String[] {
          "/experiments/preview",
          CONFIG
              .replace("name: adaptive_asha", "name: tpe")
              .replace("max_trials: 16", "max_trials: 100000")
        });

    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0)) {
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(temporal.address());
      try (ApiServer api =
          ApiServer.start(
              "127.0.0.1",
              0,
              KeelWorkerHost.client(stubs, "default"),
              StorageRoot.of(storage.toString()))) {
        String url = api.url() + "/api/v1";
        send(
            url,
            probes
                .values()
                .iterator()
                .next()); // warm-up: the server's first request loads its classes
        long before = heapAfterGc(memory);
        System.out.printf(
            Locale.ROOT,
            "%d of each request to %s (JVM max heap %d MiB)%n",
            reps,
            url,
            Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf(
            Locale.ROOT, "%-32s | %-12s | %9s | %9s%n", "request", "status", "median ms", "max ms");
        for (Map.Entry<String, String[]> probe : probes.entrySet()) {
          Map<Integer, Integer> statuses = new TreeMap<>();
          List<Double> ms = new ArrayList<>();
          for (int r = 0; r < reps; r++) {
            long t = System.nanoTime();
            int status = send(url, probe.getValue());
            ms.add((System.nanoTime() - t) / 1e6);
            statuses.merge(status, 1, Integer::sum);
          }
          List<Double> sorted = ms.stream().sorted().toList();
          System.out.printf(
              Locale.ROOT,
              "%-32s | %-12s | %9.0f | %9.0f%n",
              probe.getKey(),
              statuses,
              sorted.get(sorted.size() / 2),
              sorted.get(sorted.size() - 1));
        }
        long after = heapAfterGc(memory);
        System.out.printf(
            Locale.ROOT,
            "heap after a full GC: %.1f MiB before the requests, %.1f MiB after (%+.1f%%)%n",
            before / 1048576.0,
            after / 1048576.0,
            100.0 * (after - before) / before);
      } finally {
        stubs.shutdown();
      }
    }
  }

  /**
   * The largest config the API reads: a categorical hyperparameter with as many values as fit in 1
   * MiB.
   */
  private static String oneMebibyte() {
    StringBuilder vals = new StringBuilder();
    int room = (1 << 20) - CONFIG.length() - 64;
    for (int i = 0; vals.length() < room; i++) {
      vals.append(i == 0 ? "" : ",").append("v").append(i);
    }
    return CONFIG.replace(
        "width: {type: int", "opt: {type: categorical, vals: [" + vals + "]}\n  width: {type: int");
  }

  private static int send(String url, String[] probe) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create(url + probe[0]))
                .timeout(Duration.ofMinutes(10))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(probe[1]))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static long heapAfterGc(MemoryMXBean memory) throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
