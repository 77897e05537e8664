package dev.keel.benchmarks;

import com.google.protobuf.Value;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TrainRequest;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.gpu.collective.GlooProcessGroup;
import dev.keel.gpu.collective.Store;
import dev.keel.gpu.gang.GangJoin;
import dev.keel.gpu.gang.GangMember;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Data-parallel training of the demo CNN on the same 2 cores, each configuration in fresh worker
 * processes, the configurations interleaved round by round so drift hits all alike:
 *
 * <ul>
 *   <li>{@code 1x2}: one rank, 2 intra-op threads, batch 128 (what a single slot does today);
 *   <li>{@code 2x1}: two ranks of 1 thread, global batch 128 (64 each), gradients in buckets;
 *   <li>{@code 2x1-unbucketed}: the same with one collective per gradient tensor.
 * </ul>
 *
 * Prints samples/s (median over rounds), the 2x1 / 1x2 throughput ratio, and the share of a step
 * spent exchanging gradients.
 *
 * <pre>
 * DataParallelBenchmark [--data DIR] [--batches N] [--rounds N]
 * </pre>
 */
public final class DataParallelBenchmark {
  private static final int GLOBAL_BATCH = 128;

  /** Batches before timing starts: libtorch's first steps allocate and tune. */
  private static final int WARMUP = 20;

  private DataParallelBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--rank")) {
      rank(args);
      return;
    }
    Path data = Path.of(DemoRequest.DEFAULT_DATA);
    int batches = 300;
    int rounds = 3;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> data = Path.of(args[++i]);
        case "--batches" -> batches = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--help", "-h" -> {
          System.out.println(
              "DataParallelBenchmark [--data DIR] [--batches N (300)] [--rounds N (3)]");
          return;
        }
        default ->
            throw new IllegalArgumentException("unknown argument " + args[i] + " (try --help)");
      }
    }
    Path out = Files.createTempDirectory("keel-dp-bench");
    System.out.println(Machine.describe());
    System.out.printf(
        Locale.ROOT,
        "fashion_cnn, global batch %d, %d timed batches after %d warm-up, %d rounds%n",
        GLOBAL_BATCH,
        batches,
        WARMUP,
        rounds);
    Map<String, List<double[]>> runs = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      runs.computeIfAbsent("1x2", k -> new ArrayList<>()).add(run(data, out, 1, 2, batches, true));
      runs.computeIfAbsent("2x1", k -> new ArrayList<>()).add(run(data, out, 2, 1, batches, true));
      runs.computeIfAbsent("2x1-unbucketed", k -> new ArrayList<>())
          .add(run(data, out, 2, 1, batches, false));
      System.out.printf(Locale.ROOT, "round %d: %s%n", round, summary(runs, round - 1));
    }
    System.out.printf(
        Locale.ROOT, "%n%-16s %12s %16s%n", "configuration", "samples/s", "exchange share");
    for (var e : runs.entrySet()) {
      System.out.printf(
          Locale.ROOT,
          "%-16s %12.0f %15.1f%%%n",
          e.getKey(),
          median(e.getValue(), 0),
          100 * median(e.getValue(), 1));
    }
    System.out.printf(
        Locale.ROOT,
        "2 ranks x 1 thread / 1 rank x 2 threads: %.3fx (target >= 0.9)%n",
        median(runs.get("2x1"), 0) / median(runs.get("1x2"), 0));
  }

  private static String summary(Map<String, List<double[]>> runs, int round) {
    StringBuilder b = new StringBuilder();
    runs.forEach(
        (k, v) ->
            b.append(
                String.format(
                    Locale.ROOT,
                    "%s %.0f/s (exchange %.1f%%)  ",
                    k,
                    v.get(round)[0],
                    100 * v.get(round)[1])));
    return b.toString();
  }

  private static double median(List<double[]> runs, int field) {
    double[] v = runs.stream().mapToDouble(r -> r[field]).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** {samples/s, exchange share} of one configuration in fresh processes. */
  private static double[] run(
      Path data, Path out, int ranks, int threads, int batches, boolean bucketed) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<Process> processes = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    for (int r = 0; r < ranks; r++) {
      Path log = out.resolve("rank-" + System.nanoTime() + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx1g",
                  "-cp",
                  System.getProperty("java.class.path"),
                  DataParallelBenchmark.class.getName(),
                  "--rank",
                  data.toString(),
                  out.toString(),
                  Integer.toString(r),
                  Integer.toString(ranks),
                  Integer.toString(port),
                  Integer.toString(threads),
                  Integer.toString(batches),
                  Boolean.toString(bucketed))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().put("OMP_WAIT_POLICY", "passive");
      pb.environment().put("OMP_NUM_THREADS", Integer.toString(threads));
      processes.add(pb.start());
      logs.add(log);
    }
    double samplesPerSecond = 0;
    double share = 0;
    for (int r = 0; r < ranks; r++) {
      if (!processes.get(r).waitFor(30, TimeUnit.MINUTES) || processes.get(r).exitValue() != 0) {
        throw new IllegalStateException("rank " + r + " failed:\n" + Files.readString(logs.get(r)));
      }
      String result =
          Files.readString(logs.get(r))
              .lines()
              .filter(l -> l.startsWith("RESULT "))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no RESULT line in " + logs.get(0)));
      double[] v =
          Arrays.stream(result.substring(7).split(" ")).mapToDouble(Double::parseDouble).toArray();
      if (r == 0) {
        samplesPerSecond = v[0];
      }
      share += v[1] / ranks;
    }
    return new double[] {samplesPerSecond, share};
  }

  /**
   * Child: {@code --rank DATA OUT rank world port threads batches bucketed}; prints {@code RESULT
   * samples/s exchange-share}.
   */
  private static void rank(String[] a) throws IOException {
    Path data = Path.of(a[1]);
    int rank = Integer.parseInt(a[3]);
    int world = Integer.parseInt(a[4]);
    int port = Integer.parseInt(a[5]);
    int threads = Integer.parseInt(a[6]);
    int batches = Integer.parseInt(a[7]);
    boolean bucketed = Boolean.parseBoolean(a[8]);
    LabeledImages train = IdxFiles.read(data, "train");
    TrainingPlan plan =
        TrainingPlan.from(
            TrainRequest.newBuilder()
                .setExperimentId("dp-bench")
                .setTrialId("rank-" + rank + "-" + System.nanoTime())
                .setModel(ModelSpec.newBuilder().setName(FashionCnn.NAME))
                .putHparams("batch_size", Value.newBuilder().setNumberValue(GLOBAL_BATCH).build())
                .setTargetBatches(WARMUP + batches)
                .setThreads(threads)
                .setSeed(1)
                .setCheckpointRoot(Path.of(a[2]).toUri().toString())
                .build(),
            ModelZoo.withBuiltIns());
    GangMember[] member = new GangMember[1];
    Duration timeout = Duration.ofSeconds(60);
    GangJoin join =
        world == 1
            ? GangJoin.SINGLE
            : parameters -> {
              Store store =
                  rank == 0
                      ? Store.server("127.0.0.1", port, world, timeout)
                      : Store.client("127.0.0.1", port, world, timeout);
              member[0] =
                  GangMember.over(
                      store,
                      GlooProcessGroup.create(store, rank, world, "127.0.0.1", timeout),
                      bucketed);
              return member[0];
            };
    long[] window = new long[2];
    double[] exchangeAtStart = new double[1];
    new Trainer(
            plan,
            train,
            p -> {
              if (p.batches() == WARMUP) {
                window[0] = System.nanoTime();
                exchangeAtStart[0] = member[0] == null ? 0 : member[0].exchangeSeconds();
              } else if (p.batches() == WARMUP + batches) {
                window[1] = System.nanoTime();
              }
            },
            join)
        .run();
    double seconds = (window[1] - window[0]) / 1e9;
    double exchange = member[0] == null ? 0 : member[0].exchangeSeconds() - exchangeAtStart[0];
    System.out.printf(
        Locale.ROOT, "RESULT %.3f %.5f%n", batches * GLOBAL_BATCH / seconds, exchange / seconds);
  }
}
