package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.api.ApiServer;
import dev.keel.storage.StorageRoot;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowOptions;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real pipeline (ETL, a grid of two trials, register, inference) then its pages in headless
 * Chromium: the pipeline list shows its stage, test accuracy, data and close time and links to the
 * pipeline, whose stages all passed and which links to its model; the model's lineage names the
 * data version, the experiment, the trial, the checkpoint and the model that the pipeline's result
 * names, and links to the experiment's page with its trials. The data page lists the table, whose
 * page shows its version with rows per split and per class; a hash no page answers says "not
 * found". Screenshots stay in {@code target/dashboard-screenshots/}.
 */
@Tag("browser")
class DashboardLeadsFromAPipelineToItsModelsLineageTest {
  private static final String PIPELINE =
      """
      name: lineage
      source: {format: fashion_mnist, uri: /usr/share/datasets/fashion-mnist}
      target_table: fashion_mnist
      experiment:
        hyperparameters: {lr: {type: categorical, vals: [0.0001, 0.003]}, batch_size: 64, width: 8, hidden: 32, optimizer: adam}
        searcher: {name: grid, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 40}}
        reproducibility: {seed: 3}
        model: {name: fashion_cnn}
      """;

  @Test
  void pipelinePageLeadsToTheModelWhoseLineageIsThePipelinesResult() throws Exception {
    try (InProcessStack stack = InProcessStack.start("lineage");
        ApiServer api =
            ApiServer.start(
                "127.0.0.1", 0, stack.workers.client(), StorageRoot.of(stack.storage.toString()))) {
      PipelineRequest request = ExperimentConfigLoaders.pipelineLoader().fromYaml(PIPELINE);
      String id = "lineage-" + UUID.randomUUID().toString().substring(0, 8);
      PipelineResult result =
          stack
              .workers
              .client()
              .newWorkflowStub(
                  PipelineWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setTaskQueue(TaskQueues.CONTROL)
                      .setWorkflowId(id)
                      .build())
              .run(request);

      Path home = Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
      Path shots = Files.createDirectories(Path.of("target/dashboard-screenshots"));
      Path log = shots.resolve("dashboard-lineage-check.log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  "node",
                  home.resolve("service/src/it/browser/dashboard-lineage-check.js").toString(),
                  api.url(),
                  id,
                  shots.toAbsolutePath().toString())
              .redirectError(log.toFile());
      pb.environment().put("NODE_PATH", home.resolve(".tools/node/node_modules").toString());
      pb.environment()
          .put("CHROMIUM", System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
      Process browser = pb.start();
      String out =
          new String(browser.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      assertTrue(
          browser.waitFor(3, TimeUnit.MINUTES),
          "dashboard-lineage-check.js did not finish in 3 minutes");
      assertEquals(0, browser.exitValue(), out + "\n" + Files.readString(log));
      JsonNode seen = new ObjectMapper().readTree(out.substring(out.lastIndexOf('\n') + 1));

      String listRow = seen.get("listRow").asText();
      String accuracy =
          new BigDecimal(result.getInference().getAccuracy())
              .setScale(4, RoundingMode.HALF_UP)
              .stripTrailingZeros()
              .toPlainString();
      String when = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";
      assertTrue(
          listRow.matches(
              Pattern.quote(id + " COMPLETED done " + accuracy + " fashion_mnist ")
                  + when
                  + " "
                  + when),
          listRow);
      List<String> stages = new ArrayList<>();
      seen.get("stages").forEach(n -> stages.add(n.asText()));
      // no final_training: the train stage was skipped, every other one passed
      assertEquals(
          List.of(
              "validate passed",
              "etl passed",
              "search passed",
              "train skipped",
              "register passed",
              "infer passed",
              "promote passed",
              "done passed"),
          stages);
      String pipelinePage = seen.get("pipelinePage").asText();
      assertTrue(pipelinePage.contains(result.getExperimentId()), pipelinePage);
      assertTrue(
          pipelinePage.contains(result.getInference().getPredictions().getUri()), pipelinePage);

      var model = result.getModel();
      assertEquals(
          "lineage v" + model.getVersion() + " " + model.getStage(),
          seen.get("modelTitle").asText());
      List<String> lineage = new ArrayList<>();
      seen.get("lineage").forEach(n -> lineage.add(n.asText()));
      assertEquals(6, lineage.size(), lineage.toString());
      assertEquals(
          "Data " + model.getData().getUri() + " version " + model.getData().getVersion(),
          lineage.get(0));
      assertEquals("Experiment " + result.getExperimentId(), lineage.get(1));
      assertEquals("Trial " + model.getTrialId(), lineage.get(2));
      assertEquals("Checkpoint " + model.getSourceCheckpointUri(), lineage.get(3));
      assertEquals(
          "Model lineage v" + model.getVersion() + " " + model.getCheckpoint().getUri(),
          lineage.get(4));
      assertEquals("Predictions see the pipeline " + id, lineage.get(5));
      assertEquals(
          List.of(1, 2),
          List.of(
              seen.get("experimentTrials").get(0).asInt(),
              seen.get("experimentTrials").get(1).asInt()));

      // the ingested table and the predictions table, by name
      List<String> tables = strings(seen.get("tables"));
      assertEquals(2, tables.size(), tables.toString());
      assertTrue(tables.get(0).startsWith("fashion_mnist 0 "), tables.toString());
      assertTrue(tables.get(1).startsWith("lineage_predictions 0 "), tables.toString());
      assertEquals("Table fashion_mnist", seen.get("tableTitle").asText());
      List<String> versions = strings(seen.get("versions"));
      assertEquals(1, versions.size(), versions.toString());
      assertTrue(
          versions.get(0).startsWith("0 ")
              && versions.get(0).contains(" append fashion_mnist ")
              && versions.get(0).contains("train 60000 · test 10000"),
          versions.toString());
      // Fashion-MNIST has 7,000 images of each of its 10 classes; columns per split, if any, add up
      // to them.
      JsonNode classes = seen.get("classes");
      assertEquals(10, classes.size(), classes.toString());
      List<String> columns = strings(seen.get("classColumns"));
      assertEquals("All splits", columns.get(columns.size() - 1), columns.toString());
      for (JsonNode c : classes) {
        List<String> cells = strings(c.get("cells"));
        assertEquals("7000", cells.get(cells.size() - 1), c.toString());
        if (cells.size() > 1) {
          assertEquals(
              7000,
              cells.subList(0, cells.size() - 1).stream().mapToLong(Long::parseLong).sum(),
              c.toString());
        }
      }
      List<String> notFound = strings(seen.get("notFound"));
      assertEquals(3, notFound.size());
      for (String hash :
          List.of("#/nosuch", "#/experiments/x/bogus/1", "#/data/fashion_mnist/extra")) {
        assertTrue(
            notFound.stream()
                .anyMatch(t -> t.startsWith("Not found The dashboard has no page " + hash + ".")),
            hash + ": " + notFound);
      }
      for (String shot :
          List.of(
              "dashboard-4-pipelines.png",
              "dashboard-5-pipeline.png",
              "dashboard-6-model-lineage.png",
              "dashboard-7-data.png",
              "dashboard-8-table.png")) {
        assertTrue(Files.size(shots.resolve(shot)) > 20_000, shot);
      }
      assertTrue(Files.exists(shots.resolve("dashboard-9-not-found.png")));
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
