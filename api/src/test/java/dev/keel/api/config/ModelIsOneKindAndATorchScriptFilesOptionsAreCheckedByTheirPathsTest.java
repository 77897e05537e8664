package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ModelSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code model} names one kind of model (a built-in {@code name}, a user {@code class} or a {@code
 * torchscript} file); {@code init} and {@code freeze} belong to a TorchScript file, whose {@code
 * {placeholder}} names must be hyperparameters the experiment sets. Each problem names its path.
 */
class ModelIsOneKindAndATorchScriptFilesOptionsAreCheckedByTheirPathsTest {
  private static final ProtoConfigLoader<ExperimentConfig> LOADER =
      new ProtoConfigLoader<>(
          "experiment config",
          ExperimentConfig::newBuilder,
          c -> ExperimentConfigValidator.validate(c, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));

  private static String experiment(String model) {
    return """
        name: ts
        data: {table: t}
        hyperparameters:
          lr: 0.01
          width: {type: categorical, vals: [32, 64]}
        searcher: {name: single, metric: validation_loss, max_length: {batches: 10}}
        model: %s
        """
        .formatted(model);
  }

  private static List<String> problems(String model) {
    try {
      LOADER.fromYaml(experiment(model));
      return List.of();
    } catch (ConfigValidationException e) {
      return e.problems().stream().map(ConfigProblem::toString).toList();
    }
  }

  @Test
  void aTorchScriptFileWithInitAndFrozenPrefixesLoadsWithItsEnumWord() {
    ExperimentConfig c =
        LOADER.fromYaml(experiment("{torchscript: m.pt, init: reinitialize, freeze: [features.]}"));
    assertEquals("m.pt", c.getModel().getTorchscript());
    assertEquals(ModelSpec.Init.reinitialize, c.getModel().getInit());
    assertEquals(List.of("features."), c.getModel().getFreezeList());
    assertEquals(
        ModelSpec.Init.file,
        LOADER
            .fromYaml(experiment("{torchscript: 'w{width}.pt', init: file}"))
            .getModel()
            .getInit());
  }

  @Test
  void anInitWordThatIsNotOneOfFileOrReinitializeIsRefusedNamingTheWordsItTakes() {
    assertEquals(
        List.of("model.init: unknown value 'random' (expected file|reinitialize)"),
        problems("{torchscript: m.pt, init: random}"));
    assertEquals(
        List.of("model.init: unknown value 'INIT_UNSPECIFIED' (expected file|reinitialize)"),
        problems("{torchscript: m.pt, init: INIT_UNSPECIFIED}"));
  }

  @Test
  void twoKindsOfModelAreRefusedNamingBoth() {
    assertEquals(
        List.of("model: set one of name, class or torchscript, not name and torchscript"),
        problems("{name: fashion_cnn, torchscript: m.pt}"));
    assertEquals(
        List.of("model: set one of name, class or torchscript, not class and torchscript"),
        problems("{class: com.example.Net, torchscript: m.pt}"));
    assertEquals(
        List.of("model: set one of name, class or torchscript, not name and class and torchscript"),
        problems("{name: fashion_cnn, class: com.example.Net, torchscript: m.pt}"));
    assertEquals(List.of(), problems("{name: fashion_cnn}"));
    assertEquals(List.of(), problems("{class: com.example.Net}"));
  }

  @Test
  void initOrFreezeWithoutATorchScriptFileIsRefusedAtItsOwnPath() {
    assertEquals(
        List.of("model.init: applies to a model.torchscript file only"),
        problems("{name: fashion_cnn, init: reinitialize}"));
    assertEquals(
        List.of("model.freeze: applies to a model.torchscript file only"),
        problems("{class: com.example.Net, freeze: [features.]}"));
  }

  @Test
  void aBlankFrozenPrefixIsRefusedByItsIndex() {
    assertEquals(
        List.of("model.freeze[1]: must name a parameter prefix"),
        problems("{torchscript: m.pt, freeze: [features., '']}"));
  }

  @Test
  void aPlaceholderNoHyperparameterSetsIsRefusedNamingItAndTheOnesThatExist() {
    assertEquals(
        List.of(
            "model.torchscript: names {depth}, which neither hyperparameters nor model.params"
                + " sets (they set: lr, width)"),
        problems("{torchscript: 'models/w{width}-d{depth}.pt'}"));
    assertEquals(List.of(), problems("{torchscript: 'models/w{width}.pt'}"));
    assertEquals(
        List.of(), problems("{torchscript: 'models/w{width}-d{depth}.pt', params: {depth: 2}}"));
  }

  @Test
  void aBraceThatOpensNoPlaceholderIsRefusedQuotingTheLocation() {
    for (String location : List.of("models/w{width.pt", "models/w}.pt", "models/w{1x}.pt")) {
      assertEquals(
          List.of(
              "model.torchscript: '"
                  + location
                  + "' has a brace that is not a {name} placeholder"
                  + " (a name is letters, digits and '_')"),
          problems("{torchscript: '" + location + "'}"),
          location);
    }
  }

  @Test
  void theFieldsKeelPinsAreRefusedWhenAUserSetsThem() {
    assertEquals(
        List.of("model.torchscript_file: is set by Keel when a trial loads the file; leave it out"),
        problems("{torchscript: m.pt, torchscript_file: other.pt}"));
    assertThrows(ConfigValidationException.class, () -> LOADER.fromYaml(experiment("{init: 7}")));
  }
}
