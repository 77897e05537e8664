package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.ExperimentConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader and the experiment's own rules. The searcher's rules belong to search-strategies,
 * whose tests cover them through the full loader; here they are a stub that finds nothing.
 */
class ExperimentConfigLoaderTest {
  static final SearcherRules NO_SEARCHER_RULES = (config, wellFormed) -> List.of();
  private static final ProtoConfigLoader<ExperimentConfig> LOADER =
      new ProtoConfigLoader<>(
          "experiment config",
          ExperimentConfig::newBuilder,
          c -> ExperimentConfigValidator.validate(c, NO_SEARCHER_RULES));
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
  void loadsDeterminedStyleYamlIncludingBareConstants() {
    ExperimentConfig c = LOADER.fromYaml(VALID);
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
  void slotsPerTrialMustShareEveryBatchSizeEvenly() {
    assertEquals(
        4,
        LOADER
            .fromYaml(VALID.replace("slots_per_trial: 1", "slots_per_trial: 4"))
            .getResources()
            .getSlotsPerTrial(),
        "64 splits over 4 ranks");
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () -> LOADER.fromYaml(VALID.replace("slots_per_trial: 1", "slots_per_trial: 3")));
    assertEquals(
        List.of(
            "hyperparameters.batch_size: 64 cannot be split evenly over resources.slots_per_trial = 3 ranks"
                + " (the batch size is the global one)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    ConfigValidationException tooMany =
        assertThrows(
            ConfigValidationException.class,
            () -> LOADER.fromYaml(VALID.replace("slots_per_trial: 1", "slots_per_trial: 100000")));
    assertEquals(
        List.of("resources.slots_per_trial: must be <= 512, got 100000"),
        tooMany.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void validationRowsAreSetUnderValidationAndCheckedByTheirPaths() {
    ExperimentConfig c =
        LOADER.fromYaml(VALID + "validation: {fraction: 0.2, stratify: false, seed: 5}\n");
    assertEquals(0.2, c.getValidation().getFraction());
    assertEquals(false, c.getValidation().getStratify());
    assertEquals(5, c.getValidation().getSeed());
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromYaml(
                    VALID.replace("version: 3}", "version: 3, validation_fraction: 0.1}")
                        + "validation: {fraction: 0.2}\n"));
    assertEquals(
        List.of(
            "validation.fraction: 0.2 differs from data.validation_fraction 0.1 (the older spelling of"
                + " the same setting): set one of them"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    ConfigValidationException range =
        assertThrows(
            ConfigValidationException.class,
            () -> LOADER.fromYaml(VALID + "validation: {fraction: 1.5}\n"));
    assertEquals(
        List.of("validation.fraction: must be > 0 and < 1, got 1.5"),
        range.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void jsonAndYamlGiveTheSameMessage() throws Exception {
    ExperimentConfig fromYaml = LOADER.fromYaml(VALID);
    String json = JsonFormat.printer().print(fromYaml);
    assertEquals(fromYaml, LOADER.fromJson(json));
  }

  @Test
  void reportsUnknownFieldsAndWrongTypesTogether() {
    String bad =
        VALID
            .replace("max_restarts: 3", "max_restarts: three\nmax_restart: 3")
            .replace("smaller_is_better: true", "smaller_is_better: yes please")
            .replace("slots_per_trial: 1", "slots_per_trial: 1.5");
    ConfigValidationException e =
        assertThrows(ConfigValidationException.class, () -> LOADER.fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("max_restarts: expected an integer, got 'three'"), lines::toString);
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.startsWith(
                        "max_restart: unknown field (expected one of name, description, data,")),
        lines::toString);
    assertTrue(
        lines.contains("searcher.smaller_is_better: expected true or false, got 'yes please'"),
        lines::toString);
    assertTrue(
        lines.contains("resources.slots_per_trial: expected an integer, got 1.5"), lines::toString);
  }

  @Test
  void logWithNonPositiveBaseAndMissingBoundsAreRejected() {
    String bad =
        VALID.replace("{type: log, minval: -4, maxval: -1, base: 10}", "{type: log, base: -2}");
    ConfigValidationException e =
        assertThrows(ConfigValidationException.class, () -> LOADER.fromYaml(bad));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(
        lines.contains("hyperparameters.lr.base: must be > 0 and != 1, got -2"), lines::toString);
    assertTrue(
        lines.contains("hyperparameters.lr.minval: required for a log hyperparameter"),
        lines::toString);
    assertTrue(
        lines.contains("hyperparameters.lr.maxval: required for a log hyperparameter"),
        lines::toString);
  }

  @Test
  void lengthMustHaveExactlyOnePositiveUnit() {
    String two =
        VALID.replace("max_length: {batches: 2000}", "max_length: {batches: 2000, epochs: 1}");
    ConfigValidationException e =
        assertThrows(ConfigValidationException.class, () -> LOADER.fromYaml(two));
    assertEquals(
        "searcher.max_length: set only one of batches|records|epochs, got batches and epochs",
        e.problems().get(0).toString());
    String zero = VALID.replace("max_length: {batches: 2000}", "max_length: {batches: 0}");
    e = assertThrows(ConfigValidationException.class, () -> LOADER.fromYaml(zero));
    assertEquals("searcher.max_length.batches: must be > 0, got 0", e.problems().get(0).toString());
  }

  @Test
  void syntaxErrorsNameTheFileAndLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("exp.yaml");
    Files.writeString(file, "name: x\nsearcher: {name: random\n");
    ConfigValidationException e =
        assertThrows(ConfigValidationException.class, () -> LOADER.fromFile(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(
        e.getMessage().matches("(?s).*syntax error at line \\d+, column \\d+.*"), e.getMessage());
    ConfigValidationException missing =
        assertThrows(
            ConfigValidationException.class, () -> LOADER.fromFile(dir.resolve("nope.yaml")));
    assertTrue(missing.getMessage().contains("file not found"), missing.getMessage());
  }

  @Test
  void searcherRulesAnswerInPlaceAndLearnWhetherTheHyperparametersAreWellFormed() {
    List<Boolean> verdicts = new ArrayList<>();
    SearcherRules rules =
        (c, wellFormed) -> {
          verdicts.add(wellFormed);
          return List.of(new ConfigProblem("searcher.divisor", "stub"));
        };
    ProtoConfigLoader<ExperimentConfig> unchecked =
        new ProtoConfigLoader<>("x", ExperimentConfig::newBuilder, c -> List.of());
    ExperimentConfig bad =
        unchecked.fromYaml(
            VALID
                .replace("slots_per_trial: 1", "slots_per_trial: 0")
                .replace("vals: [adam, sgd]", "vals: []"));
    assertEquals(
        List.of(
            "hyperparameters.optimizer.vals: must list at least one value",
            "searcher.divisor: stub",
            "resources.slots_per_trial: must be >= 1, got 0"),
        ExperimentConfigValidator.validate(bad, rules).stream()
            .map(ConfigProblem::toString)
            .toList());
    ExperimentConfig searchOnly =
        ExperimentConfig.newBuilder().setSearcher(LOADER.fromYaml(VALID).getSearcher()).build();
    assertEquals(
        List.of("searcher.divisor: stub"),
        ExperimentConfigValidator.validateSearch(searchOnly, rules).stream()
            .map(ConfigProblem::toString)
            .toList(),
        "a search alone needs no data table");
    assertEquals(List.of(false, true), verdicts);
  }
}
