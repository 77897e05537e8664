package dev.keel.benchmarks;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.SearchPreview;
import dev.keel.search.Searchers;
import dev.keel.search.sim.SyntheticOracle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * CPU seconds of one search preview ({@code Searchers.preview}, what {@code POST
 * /api/v1/experiments/preview} and {@code keel experiment preview} run) by {@code max_trials}: the
 * median of {@code --reps} runs per size, after one warm-up run of the smallest size.
 *
 * <pre>
 * java -cp "$CP" dev.keel.benchmarks.PreviewCostBenchmark --trials 10000,100000 --reps 3 --searcher adaptive_asha
 * </pre>
 *
 * Options: {@code --trials N,N,...} (10000,100000), {@code --reps N} (3), {@code --searcher NAME}
 * (adaptive_asha), {@code --stop-once} (ASHA's stopping variant), {@code --sampler random|tpe}
 * (random).
 */
public final class PreviewCostBenchmark {
  private PreviewCostBenchmark() {}

  public static void main(String[] args) {
    List<Integer> sizes = List.of(10_000, 100_000);
    int reps = 3;
    String searcher = "adaptive_asha";
    boolean stopOnce = false;
    String sampler = "random";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--trials" ->
            sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--searcher" -> searcher = args[++i];
        case "--stop-once" -> stopOnce = true;
        case "--sampler" -> sampler = args[++i];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    cpuSeconds(threads, config(searcher, sizes.get(0), stopOnce, sampler)); // warm-up
    System.out.printf(
        "%s%s, sampler %s: CPU seconds of one preview, median of %d%n",
        searcher, stopOnce ? " stop_once" : "", sampler, reps);
    System.out.printf("%10s | %8s | %s%n", "max_trials", "median", "runs");
    for (int n : sizes) {
      ExperimentConfig config = config(searcher, n, stopOnce, sampler);
      List<Double> runs = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        runs.add(cpuSeconds(threads, config));
      }
      List<Double> sorted = runs.stream().sorted().toList();
      System.out.printf(
          "%10d | %8.3f | %s%n",
          n,
          sorted.get(sorted.size() / 2),
          runs.stream().map(x -> String.format("%.3f", x)).toList());
    }
  }

  static ExperimentConfig config(String searcher, int trials, boolean stopOnce, String sampler) {
    SearcherConfig.Builder s =
        SearcherConfig.newBuilder()
            .setName(searcher)
            .setMetric("loss")
            .setSmallerIsBetter(true)
            .setMaxTrials(trials)
            .setSeed(1)
            .setMaxLength(Length.newBuilder().setBatches(2560));
    if (stopOnce) {
      s.setStopOnce(true);
    }
    if (!sampler.equals("random")) {
      s.setSampler(sampler);
    }
    return ExperimentConfig.newBuilder()
        .putAllHyperparameters(new SyntheticOracle(0.02).hyperparameters())
        .setSearcher(s)
        .build();
  }

  private static double cpuSeconds(ThreadMXBean threads, ExperimentConfig config) {
    long start = threads.getCurrentThreadCpuTime();
    SearchPreview p = Searchers.preview(config);
    long used = threads.getCurrentThreadCpuTime() - start;
    if (p.trials() <= 0) {
      throw new IllegalStateException("empty preview");
    }
    return used / 1e9;
  }
}
