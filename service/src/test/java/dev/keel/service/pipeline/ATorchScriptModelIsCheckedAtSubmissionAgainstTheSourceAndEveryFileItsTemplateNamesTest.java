package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.experiment.ExperimentLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code model.torchscript} is read when a pipeline or an experiment is submitted (or validated),
 * not by its first trial: every file its template can name must exist and be TorchScript, and in a
 * pipeline over a local source whose feature columns are named, must take the source's feature
 * vectors. Each refusal names the file, the placeholder values that made it, and what is wrong.
 */
class ATorchScriptModelIsCheckedAtSubmissionAgainstTheSourceAndEveryFileItsTemplateNamesTest {
  private static final String FIELD = "experiment.model.torchscript";

  @TempDir static Path dir;
  private static Path csv;
  private static Path models;

  @BeforeAll
  static void files() throws IOException {
    csv = dir.resolve("rows.csv");
    Files.writeString(csv, "a,b,c,label\n1,2,3,x\n4,5,6,y\n7,8,9,x\n");
    models = Files.createDirectories(dir.resolve("models"));
    TorchScriptFixtureFiles.mlp(models.resolve("mlp-3in.pt"), 3, 2, 8);
    TorchScriptFixtureFiles.mlp(models.resolve("mlp-5in.pt"), 5, 2, 8);
    TorchScriptFixtureFiles.mlp(models.resolve("mlp-w8.pt"), 3, 2, 8);
    TorchScriptFixtureFiles.stateDict(models.resolve("state-dict.pt"), 3, 2);
  }

  private static PipelineRequest pipeline(String model, String hyperparameters) {
    return ExperimentConfigLoaders.pipelineLoader()
        .fromYaml(
            """
            name: ts-check
            source: {format: csv, uri: %s, label_column: label, feature_columns: [a, b, c]}
            target_table: ts_check
            experiment:
              hyperparameters: {batch_size: 2%s}
              searcher: {name: random, metric: validation_accuracy, smaller_is_better: false,
                         max_trials: 2, max_length: {batches: 2}}
              model: %s
            """
                .formatted(csv, hyperparameters, model));
  }

  private static List<ConfigProblem> refused(PipelineRequest request) {
    return assertThrows(
            ConfigValidationException.class,
            () -> PipelineLauncher.checkSource(request, "ts-check.yaml"))
        .problems();
  }

  private static ConfigProblem onlyProblem(List<ConfigProblem> problems) {
    assertEquals(1, problems.size(), problems.toString());
    assertEquals(FIELD, problems.get(0).path(), problems.toString());
    return problems.get(0);
  }

  @Test
  void aFileWhoseInputIsNotTheSourcesFeatureCountIsRefusedNamingTheFileAndTheShapes() {
    Path file = models.resolve("mlp-5in.pt");
    String message = onlyProblem(refused(pipeline("{torchscript: '" + file + "'}", ""))).message();
    assertTrue(
        message.startsWith(
            file
                + " cannot take source "
                + csv
                + "'s feature vectors: its forward failed on a zero batch of shape (1, 3): "),
        message);
    assertTrue(message.contains("(1x3 and 5x8)"), message);
  }

  @Test
  void aTemplateWithOneMissingVariantIsRefusedNamingTheFilledFileAndItsValue() {
    String template = models + "/mlp-w{width}.pt";
    ConfigProblem problem =
        onlyProblem(
            refused(
                pipeline(
                    "{torchscript: '" + template + "'}",
                    ", width: {type: categorical, vals: [8, 16]}")));
    assertEquals(
        models + "/mlp-w16.pt does not exist (" + template + " with width=16)", problem.message());
  }

  @Test
  void aStateDictIsRefusedWithHowToExportTheModel() {
    Path file = models.resolve("state-dict.pt");
    assertEquals(
        file
            + " is a torch.save file (a pickled state_dict or module), not TorchScript;"
            + " export the model with torch.jit.script(model).save(path)"
            + " (or torch.jit.trace(model, example).save(path))",
        onlyProblem(refused(pipeline("{torchscript: '" + file + "'}", ""))).message());
  }

  @Test
  void filesThatTakeTheSourcesExamplesAreAccepted() {
    PipelineLauncher.checkSource(
        pipeline("{torchscript: '" + models.resolve("mlp-3in.pt") + "'}", ""), "ts-check.yaml");
    PipelineLauncher.checkSource(
        pipeline(
            "{torchscript: '" + models + "/mlp-w{width}.pt', init: reinitialize, freeze: [fc1.]}",
            ", width: 8"),
        "ts-check.yaml");
  }

  @Test
  void anExperimentSubmissionReadsEveryFileItsTemplateNames() {
    String template = models + "/mlp-w{width}.pt";
    ExperimentConfig config =
        ExperimentConfigLoaders.experimentLoader()
            .fromYaml(
                """
                name: ts-experiment
                data: {table: ts_check}
                hyperparameters: {batch_size: 2, width: {type: int, minval: 7, maxval: 8}}
                searcher: {name: random, metric: validation_accuracy, smaller_is_better: false,
                           max_trials: 2, max_length: {batches: 2}}
                model: {torchscript: '%s'}
                """
                    .formatted(template));
    // no client: the refusal comes before anything would be started
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentLauncher.start(
                    null, ExperimentRequest.newBuilder().setConfig(config).build()));
    assertEquals(
        List.of(
            new ConfigProblem(
                "model.torchscript",
                models + "/mlp-w7.pt does not exist (" + template + " with width=7)")),
        e.problems());

    ExperimentConfig good =
        config.toBuilder()
            .putHyperparameters(
                "width", config.getHyperparametersOrThrow("width").toBuilder().setMinval(8).build())
            .build();
    ExperimentLauncher.check(good, "experiment config");
    ExperimentConfig stateDict =
        good.toBuilder()
            .setModel(
                good.getModel().toBuilder()
                    .setTorchscript(models.resolve("state-dict.pt").toString()))
            .build();
    ConfigValidationException refused =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentLauncher.check(stateDict, "experiment config"));
    assertTrue(
        refused.problems().get(0).message().contains("torch.jit.script(model).save(path)"),
        refused.problems().toString());

    // freeze prefixes are checked against the file's parameters before any trial runs
    ExperimentConfig typo =
        good.toBuilder().setModel(good.getModel().toBuilder().addFreeze("encoder.")).build();
    ConfigValidationException unknown =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentLauncher.check(typo, "experiment config"));
    assertEquals(
        "model.freeze[0]", unknown.problems().get(0).path(), unknown.problems().toString());
    assertTrue(
        unknown.problems().get(0).message().contains("'encoder.' matches no parameter"),
        unknown.problems().toString());
    ExperimentConfig all =
        good.toBuilder().setModel(good.getModel().toBuilder().addFreeze("fc")).build();
    ConfigValidationException nothing =
        assertThrows(
            ConfigValidationException.class,
            () -> ExperimentLauncher.check(all, "experiment config"));
    assertEquals("model.freeze", nothing.problems().get(0).path(), nothing.problems().toString());
    assertTrue(
        nothing.problems().get(0).message().contains("nothing would train"),
        nothing.problems().toString());
  }
}
