package dev.keel.benchmarks;

import dev.keel.search.sim.LearningCurveOracle;
import dev.keel.search.sim.RecordedCurvesOracle;
import dev.keel.search.sim.SearcherComparison;
import dev.keel.search.sim.SearcherComparison.Row;
import dev.keel.search.sim.SyntheticOracle;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Compares every searcher on a simulated learning-curve oracle ({@link SearcherComparison}) and
 * prints the medians as a table.
 *
 * <pre>
 * ./mvnw -o -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) dev.keel.benchmarks.SearchBenchmark \
 *     --seeds 20 --trials 2000 --workers 16
 * </pre>
 *
 * Options: {@code --seeds N} (20), {@code --trials N} (2000), {@code --workers K} (16), {@code
 * --max-length U} (2560), {@code --target M} (0.14: about the best 0.1% of configurations at {@code
 * max_length}), {@code --noise S} (0.02), {@code --curves FILE} (recorded curves instead of the
 * synthetic oracle; then set {@code --target}).
 */
public final class SearchBenchmark {
  private SearchBenchmark() {}

  public static void main(String[] args) throws IOException {
    int seeds = 20;
    int trials = 2000;
    int workers = 16;
    long maxLength = 2560;
    double target = 0.14;
    double noise = 0.02;
    String curves = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seeds" -> seeds = Integer.parseInt(args[++i]);
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--workers" -> workers = Integer.parseInt(args[++i]);
        case "--max-length" -> maxLength = Long.parseLong(args[++i]);
        case "--target" -> target = Double.parseDouble(args[++i]);
        case "--noise" -> noise = Double.parseDouble(args[++i]);
        case "--curves" -> curves = args[++i];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    LearningCurveOracle oracle =
        curves == null
            ? new SyntheticOracle(noise)
            : RecordedCurvesOracle.parse(Files.readString(Path.of(curves)));
    List<Row> rows =
        SearcherComparison.run(
            oracle, SearcherComparison.entries(), seeds, trials, workers, maxLength, target);
    print(System.out, oracle, rows, seeds, trials, workers, maxLength, target);
  }

  static void print(
      PrintStream out,
      LearningCurveOracle oracle,
      List<Row> rows,
      int seeds,
      int trials,
      int workers,
      long maxLength,
      double target) {
    out.printf(
        "Oracle: %s; max_trials %d, max_length %d, %d workers, target %s %.4f; medians over %d seeds%n",
        oracle.getClass().getSimpleName(),
        trials,
        maxLength,
        workers,
        oracle.smallerIsBetter() ? "<=" : ">=",
        target,
        seeds);
    if (oracle instanceof SyntheticOracle s) {
      out.printf(
          "Known optimum: %.4f at max_length (noise-free)%n",
          s.expected(SyntheticOracle.optimum(), maxLength));
    }
    String header =
        String.format(
            "%-24s | %7s | %9s | %12s | %13s | %15s | %7s | %11s | %12s",
            "searcher",
            "trials",
            "best",
            "compute",
            "time→target",
            "compute→target",
            "reached",
            "utilization",
            "util(search)");
    out.println(header);
    out.println("-".repeat(header.length()));
    for (Row r : rows) {
      out.printf(
          "%-24s | %7.0f | %9.4f | %12.0f | %13s | %15s | %4d/%-2d | %10.1f%% | %11.1f%%%n",
          r.label(),
          r.trials(),
          r.best(),
          r.units(),
          fmt(r.timeToTarget()),
          fmt(r.unitsToTarget()),
          r.reached(),
          r.seeds(),
          100 * r.utilization(),
          100 * r.searchPhaseUtilization());
    }
    Row random = find(rows, "random");
    Row asha = find(rows, "adaptive_asha");
    Row hyperband = find(rows, "hyperband");
    if (random != null && asha != null) {
      out.printf(
          "ASHA / random compute to reach the target: %s (median %s vs %s units)%n",
          Double.isFinite(asha.unitsToTarget()) && Double.isFinite(random.unitsToTarget())
              ? String.format(
                  "%.3f = 1/%.1f",
                  asha.unitsToTarget() / random.unitsToTarget(),
                  random.unitsToTarget() / asha.unitsToTarget())
              : "n/a (target not reached in most seeds)",
          fmt(asha.unitsToTarget()),
          fmt(random.unitsToTarget()));
    }
    if (asha != null && hyperband != null) {
      out.printf(
          "Worker utilization while trials remain to start: ASHA %.1f%%, Hyperband %.1f%%; whole run incl. drain: ASHA %.1f%%, Hyperband %.1f%%%n",
          100 * asha.searchPhaseUtilization(),
          100 * hyperband.searchPhaseUtilization(),
          100 * asha.utilization(),
          100 * hyperband.utilization());
    }
  }

  private static Row find(List<Row> rows, String label) {
    return rows.stream().filter(r -> r.label().equals(label)).findFirst().orElse(null);
  }

  private static String fmt(double v) {
    return Double.isInfinite(v) ? "not reached" : String.format("%.0f", v);
  }
}
