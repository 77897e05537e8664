package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExperimentConfigLoaderTest {
  private static final String VALID = """
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
  void loadsDeterminedStyleYamlIncludingBareConstants() {
    ExperimentConfig c = ConfigLoaders.experiment().fromYaml(VALID);
    assertEquals("fashion-asha", c.getName());
    assertEquals(3, c.getData().getVersion());
    assertEquals("const", c.getHyperparametersOrThrow("batch_size").getType());
    assertEquals(64, c.getHyperparametersOrThrow("batch_size").getVal().getNumberValue());
    assertEquals(10, c.getHyperparametersOrThrow("lr").getBase());
    assertEquals(2, c.getHyperparametersOrThrow("optimizer").getValsCount());
    assertEquals(2000, c.getSearcher().getMaxLength().getBatches());
    assertEquals(42, c.getReproducibility().getSeed());
  }

  @Test
  void jsonAndYamlGiveTheSameMessage() throws Exception {
    ExperimentConfig fromYaml = ConfigLoaders.experiment().fromYaml(VALID);
    String json = com.google.protobuf.util.JsonFormat.printer().print(fromYaml);
    assertEquals(fromYaml, ConfigLoaders.experiment().fromJson(json));
  }

  @Test
  void reportsEverySemanticProblemWithItsFieldPath() {
    String bad = VALID
        .replace("max_trials: 16", "max_trials: -3")
        .replace("type: log,", "type: logg,")
        .replace("divisor: 4", "divisor: 1")
        .replace("max_rungs: 5", "max_rungs: 0")
        .replace("vals: [adam, sgd]", "vals: []")
        .replace("minval: 8, maxval: 64", "minval: 80, maxval: 64");
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("searcher.max_trials: must be > 0, got -3"), lines::toString);
    assertTrue(lines.contains("hyperparameters.lr.type: unknown type 'logg' (expected const|int|double|log|categorical)"), lines::toString);
    assertTrue(lines.contains("searcher.divisor: must be >= 2, got 1"), lines::toString);
    assertTrue(lines.contains("searcher.max_rungs: must be >= 1, got 0"), lines::toString);
    assertTrue(lines.contains("hyperparameters.optimizer.vals: must list at least one value"), lines::toString);
    assertTrue(lines.contains("hyperparameters.width.minval: must be <= maxval (64), got 80"), lines::toString);
    assertEquals(6, lines.size(), lines::toString);
    assertTrue(e.getMessage().startsWith("invalid experiment config (6 problems):"), e.getMessage());
  }

  @Test
  void reportsUnknownFieldsAndWrongTypesTogether() {
    String bad = VALID
        .replace("max_restarts: 3", "max_restarts: three\nmax_restart: 3")
        .replace("smaller_is_better: true", "smaller_is_better: yes please")
        .replace("slots_per_trial: 1", "slots_per_trial: 1.5");
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("max_restarts: expected an integer, got 'three'"), lines::toString);
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("max_restart: unknown field (expected one of name, description, data,")), lines::toString);
    assertTrue(lines.contains("searcher.smaller_is_better: expected true or false, got 'yes please'"), lines::toString);
    assertTrue(lines.contains("resources.slots_per_trial: expected an integer, got 1.5"), lines::toString);
  }

  @Test
  void logWithNonPositiveBaseAndMissingBoundsAreRejected() {
    String bad = VALID.replace("{type: log, minval: -4, maxval: -1, base: 10}", "{type: log, base: -2}");
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("hyperparameters.lr.base: must be > 0 and != 1, got -2"), lines::toString);
    assertTrue(lines.contains("hyperparameters.lr.minval: required for a log hyperparameter"), lines::toString);
    assertTrue(lines.contains("hyperparameters.lr.maxval: required for a log hyperparameter"), lines::toString);
  }

  @Test
  void missingRequiredFieldsAreNamed() {
    ConfigValidationException e = assertThrows(ConfigValidationException.class,
        () -> ConfigLoaders.experiment().fromYaml("name: x\nsearcher: {name: random}\n"));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("data.table: required (the Delta table to train on)"), lines::toString);
    assertTrue(lines.contains("searcher.metric: required (e.g. validation_loss or accuracy)"), lines::toString);
    assertTrue(lines.contains("searcher.max_trials: required for searcher random"), lines::toString);
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("searcher.max_length: required")), lines::toString);
  }

  @Test
  void lengthMustHaveExactlyOnePositiveUnit() {
    String two = VALID.replace("max_length: {batches: 2000}", "max_length: {batches: 2000, epochs: 1}");
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromYaml(two));
    assertEquals("searcher.max_length: set only one of batches|records|epochs, got batches and epochs", e.problems().get(0).toString());
    String zero = VALID.replace("max_length: {batches: 2000}", "max_length: {batches: 0}");
    e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromYaml(zero));
    assertEquals("searcher.max_length.batches: must be > 0, got 0", e.problems().get(0).toString());
  }

  @Test
  void syntaxErrorsNameTheFileAndLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("exp.yaml");
    Files.writeString(file, "name: x\nsearcher: {name: random\n");
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromFile(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().matches("(?s).*syntax error at line \\d+, column \\d+.*"), e.getMessage());
    ConfigValidationException missing = assertThrows(ConfigValidationException.class,
        () -> ConfigLoaders.experiment().fromFile(dir.resolve("nope.yaml")));
    assertTrue(missing.getMessage().contains("file not found"), missing.getMessage());
  }

  @Test
  void searcherKnobsAndValidationPeriodUnitAreChecked() {
    String bad = VALID.replace("mode: standard", "mode: standard\n  sampler: bayes\n  perturb_factor: 1.5")
        .replace("min_validation_period: {batches: 200}", "min_validation_period: {epochs: 1}");
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> ConfigLoaders.experiment().fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("searcher.sampler: unknown sampler 'bayes' (expected random|tpe)"), lines::toString);
    assertTrue(lines.contains("searcher.perturb_factor: must be in (0, 1), got 1.5"), lines::toString);
    assertTrue(lines.contains("min_validation_period: must be in the unit of searcher.max_length (batches)"), lines::toString);
  }
}
