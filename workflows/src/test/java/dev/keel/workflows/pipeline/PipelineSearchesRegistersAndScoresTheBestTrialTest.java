package dev.keel.workflows.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogAppendResult;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.FinalTraining;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineReuse;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.FormulaTrainingActivities;
import dev.keel.workflows.experiment.RecordedHistories;
import dev.keel.workflows.testing.InMemoryModelRegistry;
import dev.keel.workflows.testing.KeelTestEnvironments;
import dev.keel.workflows.testing.OnePartitionScorer;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's stages with the search as a child experiment: a formula trainer (the best learning
 * rate is 0.01, see {@link FormulaTrainingActivities}) and the registry's contract in memory; the
 * Delta-backed registry and the real trainer are tested in their modules and end to end in the
 * service.
 */
class PipelineSearchesRegistersAndScoresTheBestTrialTest {
  private static final String SEARCH =
      """
      name: grid-search
      hyperparameters: {lr: {type: categorical, vals: [0.001, 0.01, 0.1, 0.3]}, batch_size: 32}
      searcher: {name: grid, metric: validation_loss, smaller_is_better: true, max_length: {batches: 100}}
      reproducibility: {seed: 5}
      model: {name: fashion_cnn}
      """;

  private final FormulaTrainingActivities trainer = new FormulaTrainingActivities(Map.of());
  private final InMemoryModelRegistry registry = new InMemoryModelRegistry();
  private final PinningCatalog catalog = new PinningCatalog();
  private final Map<String, Double> accuracy = new ConcurrentHashMap<>();
  private final List<InferenceRequest> scored = Collections.synchronizedList(new ArrayList<>());
  private final List<IngestRequest> ingested = Collections.synchronizedList(new ArrayList<>());
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env).registerActivitiesImplementations(registry, catalog);
    env.newWorker(TaskQueues.ETL)
        .registerActivitiesImplementations(
            (IngestActivities)
                r -> {
                  ingested.add(r);
                  return IngestResult.newBuilder()
                      .setTable(
                          TableRef.newBuilder()
                              .setUri("file:///t/" + r.getTableUri())
                              .setVersion(3))
                      .setRows(70_000)
                      .build();
                });
    // version v of a model gets accuracy[v] right (0.9 unless a test says otherwise)
    env.newWorker(TaskQueues.INFER)
        .registerActivitiesImplementations(
            new OnePartitionScorer(
                scored,
                10_000,
                r -> Math.round(10_000 * accuracy.getOrDefault(r.getModelVersion(), 0.9))));
    env.newWorker(TaskQueues.train("cpu")).registerActivitiesImplementations(trainer);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void theSearchsBestTrialIsRegisteredAndScoredAndNoFinalTrainingRunsWhenItHasTheLength() {
    PipelineResult result = run("search", pipeline(SEARCH).build());

    String experimentId = ExperimentWorkflow.childId("search");
    assertEquals(experimentId, result.getExperimentId());
    ExperimentResult experiment =
        client.newUntypedWorkflowStub(experimentId).getResult(ExperimentResult.class);
    assertEquals(ExperimentState.State.COMPLETED, experiment.getState().getState());
    assertEquals(4, experiment.getState().getTrialsCount());
    assertEquals(4, trainer.requests.size(), "only the four trials trained: " + trainer.requests);
    assertTrue(
        trainer.requests.stream().allMatch(r -> r.getData().equals(result.getData())),
        "trials train on the ETL's version");
    assertEquals(
        TableRef.newBuilder().setUri("file:///t/fashion").setVersion(3).build(), result.getData());

    CheckpointRef best = experiment.getBestCheckpoint();
    long bestTrial = experiment.getState().getBestTrialId();
    assertEquals(
        0.01,
        experiment
            .getState()
            .getTrials((int) bestTrial - 1)
            .getHparamsOrThrow("lr")
            .getNumberValue());
    assertEquals(List.of("train: no final_training"), result.getSkippedList());
    assertEquals(best, registry.registered.get(0).getCheckpoint());
    assertEquals(0.01, registry.registered.get(0).getHparamsOrThrow("lr").getNumberValue());
    assertEquals("trial-" + bestTrial, registry.registered.get(0).getTrialId());
    assertEquals(
        "grid-search", result.getModel().getName(), "the model is named after the pipeline");
    assertEquals("registry://grid-search/1/", scored.get(0).getCheckpoint().getUri());
    assertEquals("fashion_cnn", scored.get(0).getModel().getName());
    assertEquals(0.01, scored.get(0).getHparamsOrThrow("lr").getNumberValue());
  }

  @Test
  void aFinalTrainingGoesOnFromTheBestCheckpointToTheLongerLength() {
    PipelineResult result =
        run(
            "longer",
            pipeline(SEARCH)
                .setFinalTraining(
                    FinalTraining.newBuilder().setMaxLength(Length.newBuilder().setBatches(400)))
                .build());
    RecordedHistories.save(client, "longer", "longer");

    TrainRequest last = trainer.requests.get(trainer.requests.size() - 1);
    assertEquals("longer", last.getExperimentId());
    assertEquals(400, last.getTargetLength().getBatches());
    assertEquals(
        0,
        last.getBaseBatches(),
        "the length counts from the start, the checkpoint's 100 included");
    assertEquals(result.getExperimentId(), last.getStartFrom().getExperimentId());
    assertEquals(100, last.getStartFrom().getBatches());
    assertEquals(0.01, last.getHparamsOrThrow("lr").getNumberValue());
    assertEquals(
        5 + Long.parseLong(last.getStartFrom().getTrialId().substring("trial-".length())),
        last.getSeed());
    assertEquals(result.getTrain().getCheckpoint(), registry.registered.get(0).getCheckpoint());
    assertEquals(400, result.getCheckpoint().getBatches());
  }

  @Test
  void aReusedModelAndTableAreScoredWithoutEtlSearchOrTraining() {
    registry.add(
        ModelVersion.newBuilder()
            .setName("fashion")
            .setVersion(2)
            .setStage(ModelStage.champion)
            .setCheckpoint(
                CheckpointRef.newBuilder().setUuid("c-2").setUri("registry://fashion/2/"))
            .setConfig(
                ExperimentConfig.newBuilder()
                    .setModel(ModelSpec.newBuilder().setName("fashion_cnn")))
            .build());
    PipelineResult result =
        run(
            "rescore",
            PipelineRequest.newBuilder()
                .setName("rescore")
                .setReuse(
                    PipelineReuse.newBuilder()
                        .setTable(DataSpec.newBuilder().setTable("fashion").setVersion(1))
                        .setModel(ModelVersionRef.newBuilder().setName("fashion").setVersion(2)))
                .build());
    RecordedHistories.save(client, "rescore", "rescore");

    assertEquals(
        List.of(
            "etl: reuse.table fashion @ version 1",
            "search: reuse.model fashion v2",
            "train: reuse.model",
            "register: reuse.model",
            "promote: reuse.model"),
        result.getSkippedList());
    assertTrue(ingested.isEmpty());
    assertTrue(trainer.requests.isEmpty());
    assertTrue(registry.registered.isEmpty());
    assertEquals(
        TableRef.newBuilder().setUri("file:///t/fashion").setVersion(1).build(),
        scored.get(0).getData());
    assertEquals("registry://fashion/2/", scored.get(0).getCheckpoint().getUri());
    assertEquals("rescore_predictions", scored.get(0).getPredictionsTableUri());
    assertTrue(
        client.fetchHistory("rescore").getEvents().stream()
            .filter(HistoryEvent::hasStartChildWorkflowExecutionInitiatedEventAttributes)
            .allMatch(
                e ->
                    e.getStartChildWorkflowExecutionInitiatedEventAttributes()
                        .getWorkflowType()
                        .getName()
                        .equals("Inference")),
        "no search: the only child is the infer stage's");
  }

  @Test
  void aReusedExperimentsBestTrialTrainsOnTheNewDataWithoutASearch() {
    PipelineRequest first = pipeline(SEARCH).build();
    run("first", first);
    ExperimentResult searched =
        client
            .newUntypedWorkflowStub(ExperimentWorkflow.childId("first"))
            .getResult(ExperimentResult.class);
    catalog.records.put(
        "exp-7",
        ExperimentRecord.newBuilder().setConfig(first.getExperiment()).setResult(searched).build());
    trainer.requests.clear();
    registry.registered.clear();

    PipelineResult result =
        run(
            "retrain",
            PipelineRequest.newBuilder()
                .setName("retrain")
                .setReuse(
                    PipelineReuse.newBuilder()
                        .setTable(DataSpec.newBuilder().setTable("fashion").setVersion(7))
                        .setExperimentId("exp-7"))
                .setFinalTraining(
                    FinalTraining.newBuilder().setMaxLength(Length.newBuilder().setBatches(300)))
                .build());

    assertEquals(
        List.of("etl: reuse.table fashion @ version 7", "search: reuse.experiment_id exp-7"),
        result.getSkippedList());
    assertEquals(1, trainer.requests.size(), "only the final training: " + trainer.requests);
    TrainRequest last = trainer.requests.get(0);
    assertEquals(searched.getBestCheckpoint(), last.getStartFrom());
    assertEquals(
        TableRef.newBuilder().setUri("file:///t/fashion").setVersion(7).build(), last.getData());
    assertEquals(0.01, last.getHparamsOrThrow("lr").getNumberValue());
    assertEquals("exp-7", registry.registered.get(0).getExperimentId());
    assertEquals(
        7,
        registry.registered.get(0).getData().getVersion(),
        "the model last trained on version 7");
    assertTrue(
        client.fetchHistory("retrain").getEvents().stream()
            .filter(HistoryEvent::hasStartChildWorkflowExecutionInitiatedEventAttributes)
            .allMatch(
                e ->
                    e.getStartChildWorkflowExecutionInitiatedEventAttributes()
                        .getWorkflowType()
                        .getName()
                        .equals("Inference")),
        "no search: the only child is the infer stage's");
  }

  @Test
  void
      aChallengerBecomesChampionOnlyWhenItBeatsTheChampionOnTheSameDataAndEveryComparisonIsRecorded() {
    registry.add(
        ModelVersion.newBuilder()
            .setName("grid-search")
            .setVersion(1)
            .setStage(ModelStage.champion)
            .setCheckpoint(
                CheckpointRef.newBuilder().setUuid("c-1").setUri("registry://grid-search/1/"))
            .setConfig(
                ExperimentConfig.newBuilder()
                    .setModel(ModelSpec.newBuilder().setName("fashion_cnn")))
            .build());
    accuracy.put("grid-search/1", 0.88);
    accuracy.put("grid-search/2", 0.91);
    accuracy.put("grid-search/3", 0.87);

    PipelineResult better = run("better", pipeline(SEARCH).build());
    assertEquals(ModelStage.champion, better.getModel().getStage());
    assertEquals(2, better.getModel().getVersion());
    Comparison won = better.getComparison();
    assertEquals(0.91, won.getChallengerValue(), 1e-12);
    assertEquals(0.88, won.getChampionValue(), 1e-12);
    assertEquals(1, won.getChampion().getVersion());
    assertEquals(Comparison.Decision.promoted, won.getDecision());
    assertEquals(better.getData(), won.getData());
    assertEquals("test", won.getSplit());
    InferenceRequest championScored =
        scored.stream().filter(InferenceRequest::getEvaluateOnly).findFirst().orElseThrow();
    assertEquals("registry://grid-search/1/", championScored.getCheckpoint().getUri());
    assertEquals(
        better.getData(),
        championScored.getData(),
        "the champion is measured on the challenger's data version");
    assertEquals(
        ModelStage.archived,
        registry
            .describe(ModelVersionRef.newBuilder().setName("grid-search").setVersion(1).build())
            .getStage());

    PipelineResult worse = run("worse", pipeline(SEARCH).build());
    assertEquals(ModelStage.candidate, worse.getModel().getStage());
    assertEquals(Comparison.Decision.kept_champion, worse.getComparison().getDecision());
    assertEquals(2, worse.getComparison().getChampion().getVersion());
    assertEquals(
        List.of("better", "worse"),
        registry.comparisons.stream().map(Comparison::getDecidedBy).toList());
  }

  @Test
  void aModelVersionThatDoesNotExistFailsTheRunOnceNamingIt() {
    WorkflowFailedException e =
        assertThrows(
            WorkflowFailedException.class,
            () ->
                run(
                    "missing",
                    PipelineRequest.newBuilder()
                        .setReuse(
                            PipelineReuse.newBuilder()
                                .setTable(DataSpec.newBuilder().setTable("fashion"))
                                .setModel(
                                    ModelVersionRef.newBuilder().setName("fashion").setVersion(9)))
                        .build()));
    ApplicationFailure cause = rootCause(e);
    assertEquals(FailureTypes.INVALID_MODEL, cause.getType());
    assertEquals("model 'fashion' has no version 9", cause.getOriginalMessage());
    assertTrue(scored.isEmpty());
  }

  @Test
  void aSearchWhoseTrialsAllFailEndsThePipelineWithoutRegisteringAnything() {
    String allInvalid = SEARCH.replace("[0.001, 0.01, 0.1, 0.3]", "[2, 3]");
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> run("nan", pipeline(allInvalid).build()));
    ApplicationFailure cause = rootCause(e);
    assertEquals(FailureTypes.SEARCH_FOUND_NO_MODEL, cause.getType());
    assertTrue(
        cause.getOriginalMessage().startsWith("experiment nan-experiment ended "),
        cause.getOriginalMessage());
    assertTrue(registry.registered.isEmpty());
    assertTrue(scored.isEmpty());
  }

  private PipelineResult run(String id, PipelineRequest request) {
    return client
        .newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build())
        .run(request);
  }

  /** A pipeline file around an experiment's YAML, loaded as {@code keel submit} loads it. */
  private static PipelineRequest.Builder pipeline(String experimentYaml) {
    return ExperimentConfigLoaders.pipelineLoader()
        .fromYaml(
            """
        name: %s
        source: {format: fashion_mnist, uri: /data}
        target_table: fashion
        experiment:
        %s"""
                .formatted(
                    experimentYaml.lines().findFirst().orElseThrow().substring("name: ".length()),
                    experimentYaml.indent(2)))
        .toBuilder()
        .setExperimentOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true));
  }

  private static ApplicationFailure rootCause(Throwable e) {
    Throwable c = e;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return assertInstanceOf(ApplicationFailure.class, c);
  }

  /**
   * Pins a table at the version asked for, or version 5 as the latest; holds the records of
   * finished experiments.
   */
  private static final class PinningCatalog implements CatalogActivities {
    final Map<String, ExperimentRecord> records = new ConcurrentHashMap<>();

    @Override
    public ExperimentRecord experimentRecord(ExperimentRecordRequest r) {
      ExperimentRecord record = records.get(r.getExperimentId());
      if (record == null) {
        throw ApplicationFailure.newNonRetryableFailure(
            "no experiment '" + r.getExperimentId() + "' in the catalog",
            FailureTypes.INVALID_ARGUMENT);
      }
      return record;
    }

    @Override
    public DescribeTableResult describeTable(DescribeTableRequest r) {
      return DescribeTableResult.newBuilder()
          .setTable(
              TableRef.newBuilder()
                  .setUri("file:///t/" + r.getTable())
                  .setVersion(r.hasVersion() ? r.getVersion() : 5))
          .build();
    }

    @Override
    public CatalogAppendResult append(CatalogAppend batch) {
      throw new UnsupportedOperationException("the experiments here run without a catalog");
    }
  }
}
