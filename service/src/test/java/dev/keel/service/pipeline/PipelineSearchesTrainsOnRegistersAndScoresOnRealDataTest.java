package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.TaskQueues;
import dev.keel.api.BuildInfo;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.TrialState;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.api.ApiServer;
import dev.keel.service.cli.KeelRun;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.registry.ModelRegistryTable;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.client.WorkflowOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole pipeline on the real Fashion-MNIST files: ETL, a grid search of two trials as a child
 * experiment, the better trial trained on from its checkpoint, registration, scoring; then the
 * model is read back through {@code keel model} and the REST API, and a prediction row is walked
 * back to the data version, config, code commit and checkpoint that produced it.
 */
class PipelineSearchesTrainsOnRegistersAndScoresOnRealDataTest {
  private static final String PIPELINE =
      """
      name: search-e2e
      source: {format: fashion_mnist, uri: /usr/share/datasets/fashion-mnist}
      target_table: fashion_mnist
      experiment:
        name: two-lrs
        hyperparameters:
          lr: {type: categorical, vals: [0.0001, 0.003]}
          batch_size: 64
          width: 8
          hidden: 32
          dropout: 0.0
          optimizer: adam
        searcher: {name: grid, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 60}}
        min_checkpoint_period: {batches: 60}
        reproducibility: {seed: 3}
        model: {name: fashion_cnn}
      final_training: {max_length: {batches: 150}}
      """;
  private static InProcessStack stack;
  private static KeelWorkerHost workers;
  private static Path storage;

  @BeforeAll
  static void startStack() throws Exception {
    stack = InProcessStack.start("search-e2e");
    workers = stack.workers;
    storage = stack.storage;
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  void theBetterTrialIsTrainedOnRegisteredAndItsPredictionsLeadBackToItsLineage() throws Exception {
    PipelineRequest request = ExperimentConfigLoaders.pipelineLoader().fromYaml(PIPELINE);
    String id = "search-e2e-" + UUID.randomUUID();
    PipelineResult result =
        workers
            .client()
            .newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build())
            .run(request);

    // the search: two trials, the better one (lr 0.003 learns in 60 batches, 0.0001 barely does)
    // trained on
    ExperimentResult experiment =
        workers
            .client()
            .newUntypedWorkflowStub(result.getExperimentId())
            .getResult(ExperimentResult.class);
    assertEquals(ExperimentState.State.COMPLETED, experiment.getState().getState());
    assertEquals(2, experiment.getState().getTrialsCount());
    TrialState best =
        experiment.getState().getTrials((int) experiment.getState().getBestTrialId() - 1);
    assertEquals(0.003, best.getHparamsOrThrow("lr").getNumberValue());
    assertEquals(60, experiment.getBestCheckpoint().getBatches());
    assertEquals(150, result.getTrain().getBatches());
    assertEquals(150, result.getCheckpoint().getBatches());
    assertEquals(result.getTrain().getCheckpoint().getUuid(), result.getCheckpoint().getUuid());
    assertTrue(
        result.getInference().getAccuracy() > 0.6,
        "accuracy " + result.getInference().getAccuracy());

    // the registry: v1, a candidate, its own copy of the final checkpoint
    ModelRegistryTable registry = new ModelRegistryTable(StorageRoot.of(storage.toString()));
    ModelVersion model = registry.describe("search-e2e", 1);
    assertEquals(result.getModel(), model);
    assertEquals(
        ModelStage.champion,
        model.getStage(),
        "the first version of a name has no champion to beat");
    assertEquals(Comparison.Decision.promoted, result.getComparison().getDecision());
    assertTrue(!result.getComparison().hasChampion());
    assertEquals(result.getTrain().getCheckpoint().getUri(), model.getSourceCheckpointUri());
    assertTrue(
        model.getCheckpoint().getUri().startsWith(storage.toUri() + "models/search-e2e/1/"),
        model.getCheckpoint().getUri());

    // lineage: every prediction row names the checkpoint and the data version; the registry leads
    // on
    Set<String> checkpointIds = new HashSet<>();
    Set<Long> sourceVersions = new HashSet<>();
    try (CloseableIterator<RowRecord> rows =
        DeltaLog.forTable(new Configuration(), result.getInference().getPredictions().getUri())
            .snapshot()
            .open()) {
      while (rows.hasNext()) {
        RowRecord r = rows.next();
        checkpointIds.add(r.getString("checkpoint_id"));
        sourceVersions.add(r.getLong("source_table_version"));
      }
    }
    String checkpointId = checkpointIds.iterator().next();
    assertEquals(Set.of(model.getCheckpoint().getUuid()), checkpointIds);
    ModelVersion producer =
        registry.list().stream()
            .filter(v -> v.getCheckpoint().getUuid().equals(checkpointId))
            .findFirst()
            .orElseThrow();
    assertEquals(Set.of(producer.getData().getVersion()), sourceVersions);
    assertEquals(result.getIngest().getTable(), producer.getData());
    assertEquals(request.getExperiment().getModel(), producer.getConfig().getModel());
    assertEquals(0.003, producer.getHparamsOrThrow("lr").getNumberValue());
    assertEquals(BuildInfo.commit(), producer.getCodeVersion());
    assertEquals(result.getExperimentId(), producer.getExperimentId());
    assertEquals("trial-" + best.getTrialId(), producer.getTrialId());

    // a second pipeline reuses the finished experiment through the catalog: no ETL, no search,
    // trained on further
    PipelineResult again =
        workers
            .client()
            .newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id + "-again")
                    .build())
            .run(
                ExperimentConfigLoaders.pipelineLoader()
                    .fromYaml(
                        """
            name: search-e2e
            reuse: {experiment_id: %s, table: {table: fashion_mnist}}
            final_training: {max_length: {batches: 180}}
            """
                            .formatted(result.getExperimentId())));
    assertEquals(
        List.of(
            "etl: reuse.table fashion_mnist",
            "search: reuse.experiment_id " + result.getExperimentId()),
        again.getSkippedList());
    assertTrue(
        again
            .getModel()
            .getSourceCheckpointUri()
            .contains("/checkpoints/" + id + "-again/trial-1/"),
        again.getModel().getSourceCheckpointUri());
    assertEquals(result.getIngest().getTable(), again.getModel().getData());
    assertEquals(180, again.getCheckpoint().getBatches());
    assertEquals(2, again.getModel().getVersion());
    assertEquals(result.getExperimentId(), again.getModel().getExperimentId());
    assertEquals(0.003, again.getModel().getHparamsOrThrow("lr").getNumberValue());
    // champion/challenger on the same data version and split: v1 re-scored, the better one stays or
    // becomes champion
    var comparison = again.getComparison();
    assertEquals(1, comparison.getChampion().getVersion());
    assertEquals(
        result.getInference().getAccuracy(),
        comparison.getChampionValue(),
        1e-12,
        "the champion re-scored on the same data gives the accuracy it had");
    assertEquals(again.getInference().getAccuracy(), comparison.getChallengerValue(), 1e-12);
    boolean won = comparison.getChallengerValue() > comparison.getChampionValue();
    assertEquals(
        won ? Comparison.Decision.promoted : Comparison.Decision.kept_champion,
        comparison.getDecision());
    assertEquals(won ? ModelStage.champion : ModelStage.candidate, again.getModel().getStage());
    assertEquals(
        won ? ModelStage.archived : ModelStage.champion,
        registry.describe("search-e2e", 1).getStage());

    // keel model list / describe / promote read and write the same registry
    String list = cli("model", "list", "--storage", storage.toString());
    assertEquals(2, list.lines().filter(l -> l.startsWith("search-e2e")).count(), list);
    String describeTwo =
        cli("model", "describe", "search-e2e", "2", "--storage", storage.toString());
    assertTrue(
        describeTwo.contains("champion/challenger:") && describeTwo.contains("vs champion v1"),
        describeTwo);
    String describe = cli("model", "describe", "search-e2e", "1", "--storage", storage.toString());
    assertTrue(describe.contains("code:            " + BuildInfo.commit()), describe);
    assertTrue(
        describe.contains(
            "experiment:      " + result.getExperimentId() + " trial-" + best.getTrialId()),
        describe);
    assertTrue(
        describe.contains(
            "hyperparameters: batch_size=64, dropout=0, hidden=32, lr=0.003, optimizer=adam, width=8"),
        describe);
    assertEquals(
        "search-e2e v2 is now champion\n",
        cli("model", "promote", "search-e2e", "2", "--storage", storage.toString()));
    // paged and filtered by stage, as GET /api/v1/models?stage=&offset=&limit= returns it
    var champions =
        new ObjectMapper()
            .readTree(
                cli(
                    "model",
                    "list",
                    "--stage",
                    "CHAMPION",
                    "--json",
                    "--storage",
                    storage.toString()));
    assertEquals(1, champions.get("total").asInt(), champions.toString());
    assertEquals(2, champions.get("versions").get(0).get("version").asInt(), champions.toString());
    var secondPage =
        new ObjectMapper()
            .readTree(
                cli(
                    "model",
                    "list",
                    "--offset",
                    "1",
                    "--limit",
                    "1",
                    "--json",
                    "--storage",
                    storage.toString()));
    assertEquals(2, secondPage.get("total").asInt(), secondPage.toString());
    assertEquals(1, secondPage.get("versions").size(), secondPage.toString());
    var archived =
        new ObjectMapper()
            .readTree(
                cli(
                    "model",
                    "list",
                    "--stage",
                    "archived",
                    "--json",
                    "--storage",
                    storage.toString()));
    assertEquals(1, archived.get("total").asInt(), "v1, after v2 was promoted: " + archived);
    assertEquals(
        0,
        new ObjectMapper()
            .readTree(
                cli(
                    "model",
                    "list",
                    "--stage",
                    "candidate",
                    "--json",
                    "--storage",
                    storage.toString()))
            .get("versions")
            .size(),
        "an empty page still lists its (no) versions");

    try (ApiServer api =
        ApiServer.start("127.0.0.1", 0, workers.client(), StorageRoot.of(storage.toString()))) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> one =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/models/search-e2e/2")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, one.statusCode(), one.body());
      assertTrue(one.body().contains("\"stage\": \"champion\""), one.body());
      HttpResponse<String> missing =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/models/search-e2e/7")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(404, missing.statusCode());
      assertTrue(
          missing.body().contains("model 'search-e2e' has no version 7 (versions 1..2)"),
          missing.body());
      HttpResponse<String> badStage =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/models/search-e2e/1/promote"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"stage\": \"prod\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, badStage.statusCode(), badStage.body());
    }
  }

  private static String cli(String... args) {
    KeelRun.Result r = KeelRun.keel(args);
    assertEquals(0, r.code(), r.err());
    return r.out();
  }
}
