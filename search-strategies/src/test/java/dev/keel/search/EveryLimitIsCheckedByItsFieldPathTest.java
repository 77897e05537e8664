package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The limits of {@link ConfigLimits} that bound a search's work are refused by the validators with
 * the field's path, before anything is built: a config over one never reaches a searcher, a grid or
 * a preview.
 */
class EveryLimitIsCheckedByItsFieldPathTest {

  private static ExperimentConfig config(
      String searcher, UnaryOperator<SearcherConfig.Builder> change) {
    return Scenarios.config(change.apply(Scenarios.searcher(searcher, 1)));
  }

  private static List<String> problems(ExperimentConfig c) {
    return assertThrows(ConfigValidationException.class, () -> Searchers.create(c))
        .problems()
        .stream()
        .map(ConfigProblem::toString)
        .toList();
  }

  @Test
  void maxTrialsAboveTheLimitIsRefusedNamingIt() {
    for (String searcher : List.of("random", "tpe", "adaptive_asha", "hyperband", "pbt")) {
      assertEquals(
          List.of("searcher.max_trials: must be <= 100000 (Keel's limit), got 1000000000"),
          problems(config(searcher, s -> s.setMaxTrials(1_000_000_000))),
          searcher);
    }
    Searchers.create(config("adaptive_asha", s -> s.setMaxTrials(ConfigLimits.MAX_TRIALS)));
  }

  @Test
  void theLimitReachesTheYamlLoaderUnderAPipelinesExperimentToo() {
    String experiment =
        """
        data: {table: t}
        hyperparameters: {lr: {type: double, minval: 0, maxval: 1}}
        searcher: {name: adaptive_asha, metric: loss, max_trials: 1000000000, max_length: {batches: 100}}
        """;
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class, () -> ExperimentConfigLoaders.load(experiment));
    assertEquals(
        List.of("searcher.max_trials: must be <= 100000 (Keel's limit), got 1000000000"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    String pipeline =
        "source: {format: fashion_mnist}\ntarget_table: t\nexperiment:\n"
            + experiment.replace("data: {table: t}\n", "").indent(2);
    ConfigValidationException p =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentConfigLoaders.pipelineLoader().fromYaml(pipeline));
    assertEquals(
        List.of("experiment.searcher.max_trials: must be <= 100000 (Keel's limit), got 1000000000"),
        p.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void rungsAndTpeCandidatesAboveTheirLimits() {
    assertEquals(
        List.of("searcher.max_rungs: must be <= 20 (Keel's limit), got 21"),
        problems(config("hyperband", s -> s.setMaxRungs(21))));
    assertEquals(
        List.of("searcher.tpe_candidates: must be <= 10000 (Keel's limit), got 2000000000"),
        problems(config("tpe", s -> s.setTpeCandidates(2_000_000_000))));
  }

  @Test
  void aHugeCountIsRefusedWithoutBuildingItsPoints() {
    ExperimentConfig c =
        Scenarios.config(Scenarios.searcher("grid", 1)).toBuilder()
            .clearHyperparameters()
            .putHyperparameters(
                "lr",
                Hyperparameter.newBuilder()
                    .setType("double")
                    .setMinval(0)
                    .setMaxval(1)
                    .setCount(Integer.MAX_VALUE)
                    .build())
            .build();
    assertEquals(
        List.of("hyperparameters.lr.count: must be <= 100000 (Keel's limit), got 2147483647"),
        problems(c));
  }

  @Test
  void aGridOfManyCountsWithinTheLimitIsSizedWithoutBuildingIt() {
    ExperimentConfig.Builder b =
        Scenarios.config(Scenarios.searcher("grid", 1)).toBuilder().clearHyperparameters();
    for (String name : List.of("a", "b", "c", "d")) {
      b.putHyperparameters(
          name,
          Hyperparameter.newBuilder()
              .setType("double")
              .setMinval(0)
              .setMaxval(1)
              .setCount(ConfigLimits.MAX_GRID_POINTS)
              .build());
    }
    assertEquals(
        List.of("hyperparameters: the grid has too many points; at most 100000 (Keel's limit)"),
        problems(b.build()));
  }

  @Test
  void pbtThatWouldTrainTooOftenIsRefusedNamingTheFieldThatSetsIt() {
    UnaryOperator<SearcherConfig.Builder> big =
        s ->
            s.setMaxTrials(ConfigLimits.MAX_TRIALS)
                .setPopulationSize(1000)
                .setTruncateFraction(0.001)
                .setMaxLength(Length.newBuilder().setBatches(1_000_000));
    assertEquals(
        List.of(
            "searcher.population_size: PBT would train 99001000 times (population 1000 x 99001 rounds);"
                + " at most 200000 (Keel's limit): lower population_size or num_rounds, or raise truncate_fraction"),
        problems(config("pbt", big)));
    assertEquals(
        "searcher.num_rounds",
        problems(config("pbt", s -> big.apply(s).setNumRounds(500))).get(0).split(":")[0]);
    Searchers.create(config("pbt", s -> big.apply(s).setNumRounds(200)));
  }
}
