package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.SearcherConfig;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** A searcher refuses an unusable config with every problem and its field path. */
class BadConfigIsRejectedWithFieldPathsTest {

  private static ConfigValidationException rejected(
      UnaryOperator<ExperimentConfig.Builder> change) {
    ExperimentConfig c =
        change.apply(Scenarios.config(Scenarios.searcher("adaptive_asha", 1)).toBuilder()).build();
    return assertThrows(ConfigValidationException.class, () -> Searchers.create(c));
  }

  private static void assertProblem(ConfigValidationException e, String path, String fragment) {
    List<ConfigProblem> problems = e.problems();
    assertTrue(
        problems.stream().anyMatch(p -> p.path().equals(path) && p.message().contains(fragment)),
        "expected " + path + ": ..." + fragment + "... in " + problems);
  }

  private static ExperimentConfig.Builder withSearcher(
      ExperimentConfig.Builder b, UnaryOperator<SearcherConfig.Builder> s) {
    return b.setSearcher(s.apply(b.getSearcher().toBuilder()));
  }

  @Test
  void divisorOfOne() {
    assertProblem(
        rejected(b -> withSearcher(b, s -> s.setDivisor(1))),
        "searcher.divisor",
        "must be >= 2, got 1");
  }

  @Test
  void zeroMaxRungs() {
    assertProblem(
        rejected(b -> withSearcher(b, s -> s.setMaxRungs(0))),
        "searcher.max_rungs",
        "must be >= 1, got 0");
  }

  @Test
  void emptyCategorical() {
    assertProblem(
        rejected(
            b ->
                b.putHyperparameters(
                    "optimizer", Hyperparameter.newBuilder().setType("categorical").build())),
        "hyperparameters.optimizer.vals",
        "at least one value");
  }

  @Test
  void minvalAboveMaxval() {
    assertProblem(
        rejected(
            b ->
                b.putHyperparameters(
                    "dropout",
                    Hyperparameter.newBuilder()
                        .setType("double")
                        .setMinval(0.6)
                        .setMaxval(0.1)
                        .build())),
        "hyperparameters.dropout.minval",
        "must be <= maxval");
  }

  @Test
  void logWithNonPositiveBase() {
    assertProblem(
        rejected(
            b ->
                b.putHyperparameters(
                    "lr",
                    Hyperparameter.newBuilder()
                        .setType("log")
                        .setMinval(-4)
                        .setMaxval(-1)
                        .setBase(0)
                        .build())),
        "hyperparameters.lr.base",
        "must be > 0");
    assertProblem(
        rejected(
            b ->
                b.putHyperparameters(
                    "lr",
                    Hyperparameter.newBuilder()
                        .setType("log")
                        .setMinval(-4)
                        .setMaxval(-1)
                        .setBase(-10)
                        .build())),
        "hyperparameters.lr.base",
        "must be > 0");
  }

  @Test
  void everyProblemIsListedAtOnce() {
    ConfigValidationException e =
        rejected(
            b ->
                withSearcher(b, s -> s.setDivisor(1).setMaxRungs(0))
                    .putHyperparameters(
                        "optimizer", Hyperparameter.newBuilder().setType("categorical").build()));
    assertTrue(e.problems().size() >= 3, e.getMessage());
    assertTrue(e.getMessage().contains("searcher.divisor: must be >= 2, got 1"), e.getMessage());
  }

  @Test
  void gridNeedsACountForEveryNumericHyperparameter() {
    ConfigValidationException e =
        rejected(
            b ->
                withSearcher(b, s -> s.setName("grid"))
                    .putHyperparameters(
                        "width",
                        Hyperparameter.newBuilder()
                            .setType("int")
                            .setMinval(1)
                            .setMaxval(8)
                            .build()));
    assertProblem(e, "hyperparameters.width.count", "required for the grid searcher");
  }

  @Test
  void gridsAreBounded() {
    ConfigValidationException e =
        rejected(
            b ->
                withSearcher(b, s -> s.setName("grid"))
                    .putHyperparameters(
                        "a",
                        Hyperparameter.newBuilder()
                            .setType("double")
                            .setMinval(0)
                            .setMaxval(1)
                            .setCount(1000)
                            .build())
                    .putHyperparameters(
                        "b",
                        Hyperparameter.newBuilder()
                            .setType("double")
                            .setMinval(0)
                            .setMaxval(1)
                            .setCount(1000)
                            .build()));
    assertProblem(e, "hyperparameters", "at most 100000");
  }

  @Test
  void pbtPopulationCannotExceedMaxTrials() {
    assertProblem(
        rejected(b -> withSearcher(b, s -> s.setName("pbt").setPopulationSize(100))),
        "searcher.population_size",
        "must be <= max_trials (60), got 100");
  }

  @Test
  void problemsOutsideTheSearchersConcernDoNotStopIt() {
    // data.table is required of a standalone experiment, but a searcher does not need it
    Searchers.create(Scenarios.config(Scenarios.searcher("random", 1)));
  }

  @Test
  void theSameProblemsComeFromTheYamlLoader() {
    String yaml =
        """
        data: {table: t}
        hyperparameters:
          lr: {type: log, minval: -4, maxval: -1, base: -2}
          opt: {type: categorical, vals: []}
          x: {type: double, minval: 2, maxval: 1}
        searcher: {name: adaptive_asha, metric: loss, max_trials: 10, max_length: {batches: 100}, divisor: 1, max_rungs: 0}
        """;
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentConfigLoaders.experimentLoader().fromYaml(yaml));
    for (String path :
        List.of(
            "hyperparameters.lr.base",
            "hyperparameters.opt.vals",
            "hyperparameters.x.minval",
            "searcher.divisor",
            "searcher.max_rungs")) {
      assertTrue(
          e.problems().stream().anyMatch(p -> p.path().equals(path)), path + " in " + e.problems());
    }
  }
}
