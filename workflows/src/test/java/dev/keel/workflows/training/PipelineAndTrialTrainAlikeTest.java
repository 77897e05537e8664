package dev.keel.workflows.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.FinalTraining;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.ValidationSpec;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import dev.keel.workflows.testing.FakeRank;
import dev.keel.workflows.testing.InMemoryModelRegistry;
import dev.keel.workflows.testing.KeelTestEnvironments;
import dev.keel.workflows.testing.OnePartitionScorer;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
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
 * A pipeline's training stage and an experiment's trial of the same config ask the trainer the same
 * thing in the same way: one builder of the request, one table of activity options, one set of
 * defaults. Lengths reach the trainer with their unit.
 */
class PipelineAndTrialTrainAlikeTest {
  private static final String CONFIG =
      """
      name: alike
      data: {table: fashion}
      hyperparameters: {lr: 0.01, batch_size: 32}
      searcher: {name: single, metric: validation_loss, max_length: {epochs: 2}}
      reproducibility: {seed: 7}
      """;

  private final Map<String, TrainRequest> trained = new ConcurrentHashMap<>();
  private final List<InferenceRequest> scored = Collections.synchronizedList(new ArrayList<>());
  private final List<TrainRequest> ranks = Collections.synchronizedList(new ArrayList<>());
  private final InMemoryModelRegistry registry = new InMemoryModelRegistry();
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env).registerActivitiesImplementations(registry);
    env.newWorker(TaskQueues.ETL)
        .registerActivitiesImplementations((IngestActivities) this::ingest);
    env.newWorker(TaskQueues.INFER)
        .registerActivitiesImplementations(new OnePartitionScorer(scored, 10, 5));
    env.newWorker(TaskQueues.train("cpu"))
        .registerActivitiesImplementations((TrainingActivities) this::train);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void theFinalTrainingGoesOnFromTheBestCheckpointWithATrialsOptionsAndSeed() {
    ExperimentConfig config = ExperimentConfigLoaders.experimentLoader().fromYaml(CONFIG);
    PipelineResult result =
        client
            .newWorkflowStub(PipelineWorkflow.class, options("pipe"))
            .run(
                pipeline(config)
                    .setFinalTraining(
                        FinalTraining.newBuilder().setMaxLength(Length.newBuilder().setEpochs(4)))
                    .build());

    String experimentId = ExperimentWorkflow.childId("pipe");
    ActivityTaskScheduledEventAttributes finalTraining = scheduledTrain("pipe");
    ActivityTaskScheduledEventAttributes trial =
        scheduledTrain(TrialWorkflow.workflowId(experimentId, 1));
    assertEquals(withoutIds(trial), withoutIds(finalTraining));

    TrainRequest fromPipeline = trained.get("pipe");
    TrainRequest fromTrial = trained.get(experimentId);
    assertEquals("epochs: 4\n", fromPipeline.getTargetLength().toString());
    assertEquals("batches: 200\n", fromPipeline.getCheckpointPeriod().toString());
    assertEquals(5000.0 / 60000.0, fromPipeline.getValidationFraction());
    assertEquals(
        ValidationSpec.newBuilder()
            .setFraction(5000.0 / 60000.0)
            .setStratify(true)
            .setSeed(0)
            .build(),
        fromPipeline.getValidation(),
        "a new run validates on rows chosen by row-id hash, per label");
    assertEquals(8, fromTrial.getSeed(), "trial 1's seed is the config's plus its number");
    // the trial's request, but for the pipeline, from the trial's checkpoint and on to the longer
    // length
    assertEquals(
        fromTrial.toBuilder()
            .clearExperimentId()
            .setTargetLength(fromPipeline.getTargetLength())
            .build(),
        fromPipeline.toBuilder().clearExperimentId().clearStartFrom().build());
    assertEquals(
        experimentId, fromPipeline.getStartFrom().getUuid(), "the best trial's checkpoint");
    assertEquals(2, fromPipeline.getStartFrom().getMetricsOrThrow("length"));
    assertEquals(
        "pipe", result.getCheckpoint().getUuid(), "the final training's checkpoint is registered");
    assertEquals(1, registry.registered.size());
    assertEquals(experimentId, registry.registered.get(0).getExperimentId());
    assertEquals("trial-1", registry.registered.get(0).getTrialId());
    assertEquals(
        "registry://alike/1/",
        scored.get(0).getCheckpoint().getUri(),
        "the registry's copy is scored");
    assertEquals(
        "alike_predictions",
        scored.get(0).getPredictionsTableUri(),
        "each pipeline its own predictions table");
    assertEquals(List.of(), result.getSkippedList());
  }

  @Test
  void aFinalTrainingWithTwoSlotsTrainsOnAGangOfTwoRanks() {
    ExperimentConfig config = ExperimentConfigLoaders.experimentLoader().fromYaml(CONFIG);
    PipelineResult result =
        client
            .newWorkflowStub(PipelineWorkflow.class, options("pipe-gang"))
            .run(
                pipeline(config)
                    .setFinalTraining(
                        FinalTraining.newBuilder()
                            .setMaxLength(Length.newBuilder().setEpochs(3))
                            .setSlotsPerTrial(2))
                    .build());

    assertEquals(List.of(0, 1), ranks.stream().map(r -> r.getGang().getRank()).sorted().toList());
    assertEquals(
        1, ranks.stream().map(r -> r.getGang().getGangId()).distinct().count(), ranks.toString());
    assertTrue(
        ranks.get(0).getGang().getGangId().startsWith("pipe-gang/gang-"),
        ranks.get(0).getGang().getGangId());
    assertEquals(List.of(2, 2), ranks.stream().map(r -> r.getGang().getWorldSize()).toList());
    assertEquals(
        List.of(0, 1), result.getTrain().getRanksList().stream().map(RankInfo::getRank).toList());
    assertEquals(
        "pipe-gang", result.getInference().getCheckpointUuid(), "rank 0's checkpoint is scored");
  }

  private static PipelineRequest.Builder pipeline(ExperimentConfig config) {
    return PipelineRequest.newBuilder()
        .setName("alike")
        .setSource(
            DataSource.newBuilder().setFormat(DataSource.Format.fashion_mnist).setUri("/data"))
        .setTargetTable("fashion")
        .setExperiment(config)
        .setExperimentOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true));
  }

  private static ActivityTaskScheduledEventAttributes withoutIds(
      ActivityTaskScheduledEventAttributes a) {
    return a.toBuilder()
        .clearActivityId()
        .clearInput()
        .clearWorkflowTaskCompletedEventId()
        .clearHeader()
        .build();
  }

  private ActivityTaskScheduledEventAttributes scheduledTrain(String workflowId) {
    List<HistoryEvent> events = client.fetchHistory(workflowId).getEvents();
    return events.stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .map(HistoryEvent::getActivityTaskScheduledEventAttributes)
        .filter(a -> a.getActivityType().getName().equals("Train"))
        .findFirst()
        .orElseThrow();
  }

  private static WorkflowOptions options(String id) {
    return WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build();
  }

  private IngestResult ingest(IngestRequest r) {
    return IngestResult.newBuilder()
        .setTable(TableRef.newBuilder().setUri(r.getTableUri()).setVersion(3))
        .setRows(10)
        .build();
  }

  private TrainResult train(TrainRequest r) {
    if (r.hasGang()) {
      ranks.add(r);
      FakeRank.join(r);
      if (r.getGang().getRank() != 0) {
        return TrainResult.newBuilder().setBatches(1).build();
      }
    }
    trained.put(r.getExperimentId(), r);
    return TrainResult.newBuilder()
        .setCheckpoint(
            CheckpointRef.newBuilder()
                .setUuid(r.getExperimentId())
                .setUri("test://" + r.getExperimentId())
                .setExperimentId(r.getExperimentId())
                .setTrialId(r.getTrialId()))
        .putValidationMetrics("validation_loss", 0.25)
        .setBatches(1)
        .setAttempt(1)
        .build();
  }
}
