package dev.keel.search;

import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.sim.RandomMetricOracle;
import dev.keel.search.sim.SimulationResult;
import dev.keel.search.sim.Simulator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * The trials a config will run and how long each trains, found like {@code det preview-search}: the
 * searcher runs against random metrics (no failures), then trials are counted by group (bracket,
 * round) and final training length.
 *
 * @param searcher the searcher's name
 * @param unit the length unit of the experiment
 * @param trials trials created
 * @param totalUnits all training, in {@code unit}
 * @param rows trials per group and final length, groups in first-use order, lengths ascending
 */
public record SearchPreview(
    String searcher, LengthUnit unit, int trials, long totalUnits, List<Row> rows) {

  /** {@code trials} trials of {@code group} train to {@code length} and stop there. */
  public record Row(String group, long length, int trials) {}

  public SearchPreview {
    rows = List.copyOf(rows);
  }

  static SearchPreview of(Searcher searcher, ExperimentConfig config) {
    return of(searcher, config, () -> false);
  }

  static SearchPreview of(Searcher searcher, ExperimentConfig config, BooleanSupplier stop) {
    RandomMetricOracle oracle =
        new RandomMetricOracle(
            config.getHyperparametersMap(), config.getSearcher().getSmallerIsBetter());
    Map<Long, Long> finalLength = new TreeMap<>();
    SimulationResult result =
        Simulator.of(oracle, Integer.MAX_VALUE)
            .stoppingWhen(stop)
            .observing(
                e -> {
                  for (Operation op : e.answer()) {
                    if (op instanceof ValidateAfter v) {
                      finalLength.put(v.trialId(), v.length().units());
                    }
                  }
                })
            .run(searcher, Searchers.seed(config));
    Map<String, Map<Long, Integer>> counts = new LinkedHashMap<>();
    finalLength.forEach(
        (trial, length) ->
            counts
                .computeIfAbsent(searcher.trialGroup(trial), g -> new TreeMap<>())
                .merge(length, 1, Integer::sum));
    List<Row> rows = new ArrayList<>();
    counts.forEach(
        (group, byLength) -> byLength.forEach((length, n) -> rows.add(new Row(group, length, n))));
    LengthUnit unit = TrainingLength.of(config.getSearcher().getMaxLength()).unit();
    return new SearchPreview(
        searcher.name(), unit, result.trialsCreated(), result.unitsTrained(), rows);
  }

  /** A fixed-width table for the CLI. */
  public String toTable() {
    int groupWidth =
        Math.max("group".length(), rows.stream().mapToInt(r -> r.group().length()).max().orElse(0));
    StringBuilder sb = new StringBuilder();
    sb.append("Using ").append(searcher).append(" search method\n");
    String format = "%-" + groupWidth + "s | %7s | %s%n";
    sb.append(String.format(format, "group", "trials", "train to"));
    sb.append("-".repeat(groupWidth))
        .append("-+-")
        .append("-".repeat(7))
        .append("-+-")
        .append("-".repeat(16))
        .append('\n');
    for (Row r : rows) {
      sb.append(String.format(format, r.group(), r.trials(), r.length() + " " + unit.label()));
    }
    sb.append(
        String.format("Total: %d trials, %d %s of training%n", trials, totalUnits, unit.label()));
    return sb.toString();
  }
}
