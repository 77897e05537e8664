package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.TintedFashionMnist;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.model.ModelExport;
import dev.keel.service.model.ModelTable;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's "bring your own PyTorch model" path on real data: {@code examples/pytorch}'s export
 * script writes two widths of its MLP, a pipeline searches over them by a {@code {hidden}}
 * placeholder, trains the best on, registers it (champion: the first version), scores the test
 * split with a drift report, and {@code keel model export}'s files load in stock PyTorch. A second
 * pipeline's model is compared with that champion on the same data.
 */
class PyTorchExampleModelsSearchTrainRegisterScoreAndExportTest {
  private static InProcessStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = InProcessStack.start("pytorch-example");
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  void theExampleMlpSearchesTrainsRegistersScoresAndExports() throws Exception {
    Path incoming = Files.createDirectories(stack.storage.resolve("incoming"));
    Path csv =
        TabularPipelineTrainsOnACsvAndScoresItsTestSplitTest.writeCsv(
            incoming.resolve("pooled.csv"));
    Path models = incoming.resolve("models");
    TorchScriptFixtureFiles.exampleModels(models);
    String yaml =
        """
        name: pytorch-mlp
        source: {format: csv, uri: %s, label_column: label}
        target_table: pooled_fashion
        experiment:
          hyperparameters: {hidden: {type: categorical, vals: [32, 64]}, lr: 0.003, batch_size: 64}
          searcher: {name: grid, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 150}}
          reproducibility: {seed: 11}
          model: {torchscript: "%s/mlp-h{hidden}.pt"}
        final_training: {max_length: {batches: 300}}
        inference: {split: test, drift: {threshold: 0.25, top_features: 3}}
        """
            .formatted(csv, models);

    PipelineResult first = run(yaml);
    assertEquals(1000, first.getInference().getRows());
    assertTrue(
        first.getInference().getAccuracy() > 0.6,
        "test accuracy " + first.getInference().getAccuracy() + " (chance 0.1)");
    assertEquals(ModelStage.champion, first.getModel().getStage(), first.getModel().toString());
    // the test rows are drawn like the training rows: their inputs and the TorchScript model's
    // predicted classes stay close to the training split's
    DriftReport drift = first.getInference().getDrift();
    assertEquals(6000, drift.getReferenceRows(), drift.toString());
    assertFalse(drift.getDrifted(), drift.toString());
    assertTrue(drift.getTotalVariation() < 0.1, drift.toString());
    assertEquals(3, drift.getTopFeaturesCount());
    VerifiedCheckpoint registered = VerifiedCheckpoint.open(first.getModel().getCheckpoint());
    String file = registered.metadata().model().getTorchscriptFile();
    assertTrue(file.matches(".*/mlp-h(32|64)\\.pt"), file);
    assertEquals(
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(Path.of(file)))),
        registered.metadata().model().getTorchscriptSha256());
    assertEquals(registered.metadata().model(), first.getModel().getModel(), "the version's model");
    assertTrue(
        ModelTable.describe(first.getModel())
            .contains(
                file + " (sha256 " + first.getModel().getModel().getTorchscriptSha256() + ")"),
        ModelTable.describe(first.getModel()));

    Path exported = stack.storage.resolve("exported");
    ModelExport.Exported out = ModelExport.write(first.getModel(), exported);
    JsonNode json = new ObjectMapper().readTree(out.description().toFile());
    assertEquals("[-1,49]", json.get("input").get("shape").toString());
    assertEquals(10, json.get("classes").size());
    assertEquals(file, json.get("trained_from").get("torchscript").asText());
    String shape =
        TorchScriptFixtureFiles.python(
            "-c",
            "import torch, sys; m = torch.jit.load(sys.argv[1]).eval();"
                + " print(tuple(m(torch.zeros(3, 49)).shape))",
            out.model().toString());
    assertEquals("(3, 10)", shape.strip());

    PipelineResult second = run(yaml.replace("seed: 11", "seed: 12"));
    assertEquals(2, second.getModel().getVersion(), second.toString());
    assertEquals(first.getModel().getName(), second.getModel().getName());
    assertEquals(
        1, second.getComparison().getChampion().getVersion(), second.getComparison().toString());
  }

  private static PipelineResult run(String yaml) {
    return stack
        .workers
        .client()
        .newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId("pytorch-" + UUID.randomUUID())
                .build())
        .run(ExperimentConfigLoaders.pipelineLoader().fromYaml(yaml));
  }

  /**
   * The README's pipeline file, with its models exported as the README says, passes the checks a
   * submission runs: the config's own rules, and every width's file read and offered one
   * Fashion-MNIST image.
   */
  @Test
  void theExamplePipelineFileValidatesAndEachExportedWidthTakesFashionMnist() throws Exception {
    Path models =
        TorchScriptFixtureFiles.exampleModels(
            Files.createDirectories(stack.storage.resolve("example-models")));
    String yaml =
        Files.readString(
                TorchScriptFixtureFiles.repoRoot()
                    .resolve("examples/pytorch/fashion-resnet-pipeline.yaml"))
            .replace("examples/pytorch/models/", models + "/");
    PipelineRequest request = ExperimentConfigLoaders.pipelineLoader().fromYaml(yaml);
    assertEquals(models + "/cnn-w{width}.pt", request.getExperiment().getModel().getTorchscript());
    assertEquals(List.of(), ModelFitCheck.problems(request));
    Files.delete(models.resolve("cnn-w16.pt"));
    List<ConfigProblem> missing = ModelFitCheck.problems(request);
    assertEquals(1, missing.size(), missing.toString());
    assertTrue(missing.get(0).message().contains("width=16"), missing.toString());
  }

  /**
   * The colour example file as the README runs it, shortened: a tinted Fashion-MNIST folder, RGB
   * and normalised at ETL, searched over the example's colour CNN widths with flips and crops,
   * trained on, registered and scored; the export says what to feed the module and stock PyTorch
   * runs it.
   */
  @Test
  void theColourExamplePipelineTrainsOnNormalisedRgbImagesAndExportsItsStatistics()
      throws Exception {
    Path incoming = Files.createDirectories(stack.storage.resolve("incoming"));
    Path folder = incoming.resolve("tinted-fashion");
    TintedFashionMnist.write(
        Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR), folder, 32, 100);
    Path models = TorchScriptFixtureFiles.exampleModels(incoming.resolve("colour-models"));
    String yaml =
        Files.readString(
                TorchScriptFixtureFiles.repoRoot()
                    .resolve("examples/pytorch/tinted-fashion-resnet-pipeline.yaml"))
            .replace("uri: data/tinted-fashion", "uri: " + folder)
            .replace("examples/pytorch/models/", models + "/")
            .replace("vals: [0.001, 0.003]", "vals: [0.003]")
            .replace("{batches: 300}", "{batches: 60}")
            .replace("{batches: 600}", "{batches: 150}");
    PipelineRequest request = ExperimentConfigLoaders.pipelineLoader().fromYaml(yaml);
    assertEquals(List.of(), ModelFitCheck.problems(request), "each width takes 3x32x32 images");
    // the grey files do not: named at submission with both shapes
    List<ConfigProblem> grey =
        ModelFitCheck.problems(
            ExperimentConfigLoaders.pipelineLoader()
                .fromYaml(yaml.replace("/rgb-cnn-w{width}", "/cnn-w{width}")));
    assertFalse(grey.isEmpty());
    assertTrue(grey.get(0).toString().contains("32x32 rgb images"), grey.toString());

    PipelineResult result = run(yaml);
    assertEquals(1000, result.getInference().getRows());
    assertTrue(
        result.getInference().getAccuracy() > 0.5,
        "test accuracy " + result.getInference().getAccuracy() + " (chance 0.1)");
    VerifiedCheckpoint registered = VerifiedCheckpoint.open(result.getModel().getCheckpoint());
    ImageNormalization table =
        ImageNormalization.fromProperties(new DeltaDatasetReader().properties(result.getData()));
    assertFalse(table.isNone());
    assertEquals(
        ImageNormalization.format(table.mean()),
        registered.metadata().hyperparameters().get("input_mean").getStringValue(),
        "the registered model feeds its module the table's statistics");

    ModelExport.Exported out = ModelExport.write(result.getModel(), stack.storage.resolve("rgb"));
    JsonNode input = new ObjectMapper().readTree(out.description().toFile()).get("input");
    assertEquals("[-1,3,32,32]", input.get("shape").toString());
    assertEquals("rgb", input.get("channels").asText());
    assertEquals(
        "[\"ankle_boot\",\"bag\",\"coat\",\"dress\",\"pullover\",\"sandal\",\"shirt\",\"sneaker\","
            + "\"t_shirt_top\",\"trouser\"]",
        new ObjectMapper().readTree(out.description().toFile()).get("classes").toString(),
        "the folder's class names, label i the i-th");
    assertEquals(3, input.get("normalize").get("mean").size());
    assertEquals(table.std()[2], input.get("normalize").get("std").get(2).floatValue());
    String shape =
        TorchScriptFixtureFiles.python(
            "-c",
            "import torch, sys; m = torch.jit.load(sys.argv[1]).eval();"
                + " print(tuple(m(torch.zeros(2, 3, 32, 32)).shape))",
            out.model().toString());
    assertEquals("(2, 10)", shape.strip());
  }
}
