package dev.keel.search;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.sim.SyntheticOracle;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Small configs of every searcher on the synthetic oracle's hyperparameters, for property tests.
 */
public final class Scenarios {
  public static final SyntheticOracle ORACLE = new SyntheticOracle(0.02);
  public static final long MAX_LENGTH = 256;
  public static final int MAX_TRIALS = 60;
  public static final int MAX_CONCURRENT = 5;

  private Scenarios() {}

  /** One named scenario: a config and the options to build its searcher with. */
  public record Scenario(String name, ExperimentConfig config, SearcherOptions options) {
    public Searcher searcher() {
      return Searchers.create(config, options);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  public static SearcherConfig.Builder searcher(String name, long seed) {
    return SearcherConfig.newBuilder()
        .setName(name)
        .setMetric("loss")
        .setSmallerIsBetter(true)
        .setMaxTrials(MAX_TRIALS)
        .setMaxConcurrentTrials(MAX_CONCURRENT)
        .setSeed(seed)
        .setMaxLength(Length.newBuilder().setBatches(MAX_LENGTH));
  }

  public static ExperimentConfig config(SearcherConfig.Builder searcher) {
    return ExperimentConfig.newBuilder()
        .putAllHyperparameters(ORACLE.hyperparameters())
        .setSearcher(searcher)
        .build();
  }

  public static List<Scenario> all(long seed) {
    SearcherOptions d = SearcherOptions.defaults();
    return List.of(
        new Scenario(
            "single",
            config(searcher("single", seed).clearMaxTrials()).toBuilder()
                .clearHyperparameters()
                .putAllHyperparameters(constants())
                .build(),
            d),
        new Scenario("grid", config(searcher("grid", seed)), d),
        new Scenario("random", config(searcher("random", seed)), d),
        new Scenario("tpe", config(searcher("tpe", seed)), d),
        new Scenario("adaptive_asha", config(searcher("adaptive_asha", seed)), d),
        new Scenario(
            "adaptive_asha aggressive",
            config(
                searcher("adaptive_asha", seed)
                    .setMode(SearcherConfig.Mode.aggressive)
                    .setDivisor(3)),
            d),
        new Scenario(
            "adaptive_asha conservative",
            config(searcher("adaptive_asha", seed).setMode(SearcherConfig.Mode.conservative)),
            d),
        new Scenario(
            "adaptive_asha stop_once",
            config(searcher("adaptive_asha", seed).setStopOnce(true)),
            d),
        new Scenario(
            "adaptive_asha + tpe",
            config(searcher("adaptive_asha", seed)),
            d.withAshaSampler(SearcherOptions.TPE_SAMPLER)),
        new Scenario("hyperband", config(searcher("hyperband", seed)), d),
        new Scenario(
            "pbt",
            config(searcher("pbt", seed).setPopulationSize(8).setTruncateFraction(0.25)),
            d));
  }

  static Map<String, Hyperparameter> constants() {
    Map<String, Hyperparameter> hps = new TreeMap<>();
    SortedMap<String, Value> opt = SyntheticOracle.optimum();
    opt.forEach(
        (k, v) -> hps.put(k, Hyperparameter.newBuilder().setType("const").setVal(v).build()));
    return hps;
  }
}
