package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The one entry point: the experiment's own rules and the searcher's, through the loaders the CLI
 * and REST API use, each problem once and with its field path.
 */
class ExperimentConfigsTest {
  private static final String VALID =
      """
      name: fashion-asha
      data: {table: fashion_mnist, version: 3}
      hyperparameters:
        batch_size: 64
        lr: {type: log, minval: -4, maxval: -1, base: 10}
        width: {type: int, minval: 8, maxval: 64}
        dropout: {type: double, minval: 0.0, maxval: 0.5}
        optimizer: {type: categorical, vals: [adam, sgd]}
      searcher:
        name: adaptive_asha
        metric: validation_loss
        smaller_is_better: true
        max_trials: 16
        max_length: {batches: 2000}
        max_concurrent_trials: 2
        divisor: 4
        max_rungs: 5
        mode: standard
      resources: {slots_per_trial: 1}
      min_validation_period: {batches: 200}
      max_restarts: 3
      reproducibility: {seed: 42}
      model: {name: fashion_cnn}
      """;

  @Test
  void reportsEverySemanticProblemWithItsFieldPath() {
    String bad =
        VALID
            .replace("max_trials: 16", "max_trials: -3")
            .replace("type: log,", "type: logg,")
            .replace("divisor: 4", "divisor: 1")
            .replace("max_rungs: 5", "max_rungs: 0")
            .replace("vals: [adam, sgd]", "vals: []")
            .replace("minval: 8, maxval: 64", "minval: 80, maxval: 64");
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentConfigLoaders.experimentLoader().fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("searcher.max_trials: must be > 0, got -3"), lines::toString);
    assertTrue(
        lines.contains(
            "hyperparameters.lr.type: unknown type 'logg' (expected const|int|double|log|categorical)"),
        lines::toString);
    assertTrue(lines.contains("searcher.divisor: must be >= 2, got 1"), lines::toString);
    assertTrue(lines.contains("searcher.max_rungs: must be >= 1, got 0"), lines::toString);
    assertTrue(
        lines.contains("hyperparameters.optimizer.vals: must list at least one value"),
        lines::toString);
    assertTrue(
        lines.contains("hyperparameters.width.minval: must be <= maxval (64), got 80"),
        lines::toString);
    assertEquals(6, lines.size(), lines::toString);
    assertTrue(
        e.getMessage().startsWith("invalid experiment config (6 problems):"), e.getMessage());
  }

  @Test
  void missingRequiredFieldsAreNamed() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.experimentLoader()
                    .fromYaml("name: x\nsearcher: {name: random}\n"));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(
        lines.contains("data.table: required (the Delta table to train on)"), lines::toString);
    assertTrue(
        lines.contains("searcher.metric: required (e.g. validation_loss or accuracy)"),
        lines::toString);
    assertTrue(
        lines.contains("searcher.max_trials: required for searcher random"), lines::toString);
    assertTrue(
        lines.stream().anyMatch(l -> l.startsWith("searcher.max_length: required")),
        lines::toString);
  }

  @Test
  void searcherKnobsAndValidationPeriodUnitAreChecked() {
    String bad =
        VALID
            .replace("mode: standard", "mode: standard\n  sampler: bayes\n  perturb_factor: 1.5")
            .replace("min_validation_period: {batches: 200}", "min_validation_period: {epochs: 1}");
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentConfigLoaders.experimentLoader().fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(
        lines.contains("searcher.sampler: unknown sampler 'bayes' (expected random|tpe)"),
        lines::toString);
    assertTrue(
        lines.contains("searcher.perturb_factor: must be in (0, 1), got 1.5"), lines::toString);
    assertTrue(
        lines.contains(
            "min_validation_period: must be in the unit of searcher.max_length (batches)"),
        lines::toString);
  }

  @Test
  void singleSearcherNeedsConstantsAndSaysWhereInTheRequest() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.pipelineLoader()
                    .fromJson(
                        """
        {"source": {"format": "fashion_mnist"}, "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}},
                        "hyperparameters": {"lr": {"type": "double", "minval": 0.1, "maxval": 0.2}}}}
        """));
    assertEquals(
        List.of(
            "experiment.hyperparameters.lr: the single searcher needs const values, got type double"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void aMisspelledSearcherIsOneProblemWithNoneAboutItsFields() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.experimentLoader()
                    .fromYaml(VALID.replace("name: adaptive_asha", "name: adaptive_ashaa")));
    assertEquals(
        List.of(
            "searcher.name: unknown searcher 'adaptive_ashaa' (expected single|grid|random|adaptive_asha|hyperband|pbt|tpe)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void aMisspelledSearcherInAPipelineIsOneProblem() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.pipelineLoader()
                    .fromYaml(
                        """
        source: {format: fashion_mnist}
        target_table: t
        experiment:
          hyperparameters: {lr: 0.01}
          searcher: {name: singel, metric: m, max_length: {batches: 10}}
        """));
    assertEquals(
        List.of(
            "experiment.searcher.name: unknown searcher 'singel' (expected single|grid|random|adaptive_asha|hyperband|pbt|tpe)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void aPipelineSearchesWithAnySearcherAndItsFinalTrainingKeepsTheSearchersUnit() {
    String search =
        """
        source: {format: fashion_mnist}
        target_table: t
        experiment:
          hyperparameters: {lr: {type: log, minval: -4, maxval: -1, base: 10}}
          searcher: {name: adaptive_asha, metric: m, max_trials: 16, max_length: {batches: 800}}
        """;
    assertEquals(
        "adaptive_asha",
        ExperimentConfigLoaders.pipelineLoader()
            .fromYaml(search)
            .getExperiment()
            .getSearcher()
            .getName());
    assertEquals(
        4000,
        ExperimentConfigLoaders.pipelineLoader()
            .fromYaml(
                search + "final_training: {max_length: {batches: 4000}, slots_per_trial: 2}\n")
            .getFinalTraining()
            .getMaxLength()
            .getBatches());
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.pipelineLoader()
                    .fromYaml(
                        search
                            + "final_training: {max_length: {epochs: 3}, slots_per_trial: 0}\n"));
    assertEquals(
        List.of(
            "final_training.slots_per_trial: must be 1..512, got 0",
            "final_training.max_length: must be in batches like experiment.searcher.max_length (the best trial's length is compared with it), got epochs"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void aPipelineThatReusesArtefactsNeedsNoSourceButNotBothWays() {
    assertEquals(
        "fashion_mnist",
        ExperimentConfigLoaders.pipelineLoader()
            .fromYaml(
                """
        reuse: {model: {name: fashion, version: 3}, table: {table: fashion_mnist, version: 1}}
        """)
            .getReuse()
            .getTable()
            .getTable());
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.pipelineLoader()
                    .fromYaml(
                        """
        source: {format: fashion_mnist}
        target_table: t
        reuse: {table: {table: t}, model: {name: "../x"}, experiment_id: e-1}
        final_training: {max_length: {batches: 10}}
        """));
    assertEquals(
        List.of(
            "reuse.table: set either source (run the ETL) or reuse.table (skip it), not both",
            "reuse.model.name: must match [A-Za-z0-9][A-Za-z0-9_.-]{0,99}, got '../x'",
            "reuse.model.version: required (a registered version, 1 or more)",
            "reuse.experiment_id: a reused model skips the search: set reuse.model or reuse.experiment_id, not both",
            "final_training: a reused model is scored as it is: remove final_training or reuse.model"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void gridAndPbtRulesAreReportedByTheLoaderToo() {
    String grid =
        """
        data: {table: t}
        hyperparameters: {width: {type: int, minval: 1, maxval: 8}}
        searcher: {name: grid, metric: m, max_length: {batches: 10}}
        """;
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentConfigLoaders.experimentLoader().fromYaml(grid));
    assertEquals("hyperparameters.width.count", e.problems().get(0).path());
    ConfigValidationException pbt =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentConfigLoaders.experimentLoader()
                    .fromYaml(
                        grid.replace(
                            "name: grid", "name: pbt, max_trials: 4, population_size: 8")));
    assertEquals(
        List.of("searcher.population_size: must be <= max_trials (4), got 8"),
        pbt.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void aSearchAloneNeedsNoDataTableButAnExperimentDoes() {
    ExperimentConfig c = Scenarios.config(Scenarios.searcher("random", 1));
    assertEquals(List.of(), ExperimentConfigs.validateSearch(c));
    assertEquals(
        List.of("data.table: required (the Delta table to train on)"),
        ExperimentConfigs.validate(c).stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void loadTrustsOnlyTheConfigItsOwnLoaderValidated() {
    assertEquals("fashion-asha", ExperimentConfigLoaders.load(VALID).config().getName());
    String json =
        "{\"data\": {\"table\": \"t\"}, \"searcher\": {\"name\": \"single\", \"metric\": \"m\", \"max_length\": {\"batches\": 1}}}";
    assertEquals("single", ExperimentConfigLoaders.load(json).config().getSearcher().getName());
    ExperimentConfig unchecked = ExperimentConfig.getDefaultInstance();
    Assertions.assertThrows(
        IllegalArgumentException.class, () -> ExperimentConfigLoaders.load(loader -> unchecked));
  }
}
