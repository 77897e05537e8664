package dev.keel.search.sim;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.Searcher;
import dev.keel.search.SearcherOptions;
import dev.keel.search.Searchers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Runs every searcher on the same oracle, budget ({@code max_trials}) and worker pool over many
 * seeds and reports medians: best metric, compute spent, simulated time and compute until a target
 * metric, and worker utilization. Simulated time only. The command-line program is {@code
 * dev.keel.benchmarks.SearchBenchmark}.
 */
public final class SearcherComparison {

  /** One benchmarked searcher: a label and how its config and options differ from the base. */
  public record Entry(
      String label, UnaryOperator<SearcherConfig.Builder> searcher, SearcherOptions options) {}

  /** Medians over seeds of one searcher. */
  public record Row(
      String label,
      double best,
      double units,
      double timeToTarget,
      double unitsToTarget,
      int reached,
      int seeds,
      double utilization,
      double searchPhaseUtilization,
      double trials) {}

  private SearcherComparison() {}

  public static List<Entry> entries() {
    SearcherOptions d = SearcherOptions.defaults();
    return List.of(
        new Entry("random", s -> s.setName("random"), d),
        new Entry("tpe", s -> s.setName("tpe"), d),
        new Entry("adaptive_asha", s -> s.setName("adaptive_asha"), d),
        new Entry("adaptive_asha stop_once", s -> s.setName("adaptive_asha").setStopOnce(true), d),
        new Entry(
            "adaptive_asha + tpe",
            s -> s.setName("adaptive_asha"),
            d.withAshaSampler(SearcherOptions.TPE_SAMPLER)),
        new Entry("hyperband", s -> s.setName("hyperband"), d),
        new Entry("pbt", s -> s.setName("pbt").setPopulationSize(workers(s)), d));
  }

  static int workers(SearcherConfig.Builder s) {
    return s.getMaxConcurrentTrials();
  }

  public static List<Row> run(
      LearningCurveOracle oracle,
      List<Entry> entries,
      int seeds,
      int trials,
      int workers,
      long maxLength,
      double target) {
    List<Row> rows = new ArrayList<>();
    for (Entry e : entries) {
      double[] best = new double[seeds];
      double[] units = new double[seeds];
      double[] ttt = new double[seeds];
      double[] utt = new double[seeds];
      double[] util = new double[seeds];
      double[] phase = new double[seeds];
      double[] created = new double[seeds];
      int reached = 0;
      for (int seed = 1; seed <= seeds; seed++) {
        SearcherConfig.Builder s =
            SearcherConfig.newBuilder()
                .setMetric("loss")
                .setSmallerIsBetter(oracle.smallerIsBetter())
                .setMaxTrials(trials)
                .setMaxConcurrentTrials(workers)
                .setMaxLength(Length.newBuilder().setBatches(maxLength))
                .setSeed(seed);
        ExperimentConfig config =
            ExperimentConfig.newBuilder()
                .putAllHyperparameters(oracle.hyperparameters())
                .setSearcher(e.searcher().apply(s))
                .build();
        Searcher searcher = Searchers.create(config, e.options());
        SimulationResult r =
            Simulator.of(oracle, workers).withTarget(target).run(searcher, 1000L + seed);
        int i = seed - 1;
        best[i] = oracle.smallerIsBetter() ? r.bestMetric() : -r.bestMetric();
        units[i] = r.unitsTrained();
        ttt[i] = r.reachedTarget() ? r.timeToTarget() : Double.POSITIVE_INFINITY;
        utt[i] = r.reachedTarget() ? r.unitsToTarget() : Double.POSITIVE_INFINITY;
        util[i] = r.utilization();
        phase[i] = r.searchPhaseUtilization();
        created[i] = r.trialsCreated();
        reached += r.reachedTarget() ? 1 : 0;
      }
      double medianBest = median(best);
      rows.add(
          new Row(
              e.label(),
              oracle.smallerIsBetter() ? medianBest : -medianBest,
              median(units),
              median(ttt),
              median(utt),
              reached,
              seeds,
              median(util),
              median(phase),
              median(created)));
    }
    return rows;
  }

  public static double median(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
}
