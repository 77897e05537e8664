package dev.keel.workflows.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.activities.train.GangRendezvous;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.RankStarted;
import dev.keel.api.v1.Rendezvous;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.KeelWorkflows;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pipeline's training stage and an experiment's trial of the same config ask the trainer the same
 * thing in the same way: one builder of the request, one table of activity options, one set of
 * defaults. Lengths reach the trainer with their unit.
 */
class PipelineAndTrialTrainAlikeTest {
  private static final String CONFIG = """
      name: alike
      data: {table: fashion}
      hyperparameters: {lr: 0.01, batch_size: 32}
      searcher: {name: single, metric: validation_loss, max_length: {epochs: 2}}
      reproducibility: {seed: 7}
      """;

  private final Map<String, TrainRequest> trained = new ConcurrentHashMap<>();
  private final List<TrainRequest> ranks = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(KeelDataConverter.get()).build())
        .build());
    KeelSearchAttributes.ALL.forEach(a -> env.registerSearchAttribute(a.name(), a.type()));
    KeelWorkflows.register(env.newWorker(TaskQueues.CONTROL));
    env.newWorker(TaskQueues.ETL).registerActivitiesImplementations((IngestActivities) this::ingest);
    env.newWorker(TaskQueues.INFER).registerActivitiesImplementations(new OnePartitionScorer());
    env.newWorker(TaskQueues.train("cpu")).registerActivitiesImplementations((TrainingActivities) this::train);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void bothTrainWithTheSameOptionsAndTheSameRequest() {
    ExperimentConfig config = ExperimentConfigLoaders.experimentLoader().fromYaml(CONFIG);
    client.newWorkflowStub(PipelineWorkflow.class, options("pipe")).run(PipelineRequest.newBuilder()
        .setSource(DataSource.newBuilder().setFormat("fashion_mnist").setUri("/data"))
        .setTargetTable("fashion").setExperiment(config).build());
    client.newWorkflowStub(ExperimentWorkflow.class, options("exp")).run(ExperimentRequest.newBuilder()
        .setConfig(config).setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true)).build());

    ActivityTaskScheduledEventAttributes pipeline = scheduledTrain("pipe");
    ActivityTaskScheduledEventAttributes trial = scheduledTrain(TrialWorkflow.workflowId("exp", 1));
    assertEquals(withoutIds(pipeline), withoutIds(trial));

    TrainRequest fromPipeline = trained.get("pipe");
    TrainRequest fromTrial = trained.get("exp");
    assertEquals("epochs: 2\n", fromPipeline.getTargetLength().toString());
    assertEquals("batches: 200\n", fromPipeline.getCheckpointPeriod().toString());
    assertEquals(5000.0 / 60000.0, fromPipeline.getValidationFraction());
    // the same request but for whose it is: the experiment, the trial's seed offset (trial 1), the data version
    assertEquals(fromPipeline.toBuilder().clearExperimentId().setSeed(8).clearData().build(),
        fromTrial.toBuilder().clearExperimentId().clearData().build());
  }

  @Test
  void aPipelineWithTwoSlotsTrainsOnAGangOfTwoRanks() {
    ExperimentConfig config = ExperimentConfigLoaders.experimentLoader()
        .fromYaml(CONFIG + "resources: {slots_per_trial: 2}\n");
    PipelineResult result = client.newWorkflowStub(PipelineWorkflow.class, options("pipe-gang")).run(
        PipelineRequest.newBuilder().setSource(DataSource.newBuilder().setFormat("fashion_mnist").setUri("/data"))
            .setTargetTable("fashion").setExperiment(config).build());

    assertEquals(List.of(0, 1), ranks.stream().map(r -> r.getGang().getRank()).sorted().toList());
    assertEquals(1, ranks.stream().map(r -> r.getGang().getGangId()).distinct().count(), ranks.toString());
    assertEquals(List.of(2, 2), ranks.stream().map(r -> r.getGang().getWorldSize()).toList());
    assertEquals(List.of(0, 1), result.getTrain().getRanksList().stream().map(RankInfo::getRank).toList());
    assertEquals("pipe-gang", result.getInference().getCheckpointUuid(), "rank 0's checkpoint is scored");
  }

  private static ActivityTaskScheduledEventAttributes withoutIds(ActivityTaskScheduledEventAttributes a) {
    return a.toBuilder().clearActivityId().clearInput().clearWorkflowTaskCompletedEventId().clearHeader().build();
  }

  private ActivityTaskScheduledEventAttributes scheduledTrain(String workflowId) {
    List<HistoryEvent> events = client.fetchHistory(workflowId).getEvents();
    return events.stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .map(HistoryEvent::getActivityTaskScheduledEventAttributes)
        .filter(a -> a.getActivityType().getName().equals("Train")).findFirst().orElseThrow();
  }

  private static WorkflowOptions options(String id) {
    return WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build();
  }

  /** A rank's side of the rendezvous, played for real through the workflow's signal and query. */
  private void joinGang(TrainRequest r) {
    ranks.add(r);
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    WorkflowStub wf = ctx.getWorkflowClient().newUntypedWorkflowStub(ctx.getInfo().getWorkflowId());
    RankStarted.Builder started = RankStarted.newBuilder().setGangId(r.getGang().getGangId())
        .setRank(RankInfo.newBuilder().setRank(r.getGang().getRank()).setWorkerIdentity("w" + r.getGang().getRank()));
    if (r.getGang().getRank() == 0) {
      started.setRendezvous(Rendezvous.newBuilder().setGangId(r.getGang().getGangId()).setHost("127.0.0.1").setPort(1));
    }
    wf.signal(GangRendezvous.RANK_STARTED, started.build());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (wf.query(GangRendezvous.RENDEZVOUS, Rendezvous.class, r.getGang().getGangId()).getPort() == 0) {
      assertTrue(System.nanoTime() < deadline, "no rendezvous");
      try {
        Thread.sleep(20); // the rendezvous is a query: ranks poll it, as GangMember does
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private IngestResult ingest(IngestRequest r) {
    return IngestResult.newBuilder().setTable(TableRef.newBuilder().setUri(r.getTableUri()).setVersion(3)).setRows(10).build();
  }

  /** Inference is not what this test is about: one partition of 10 rows, half right, committed as version 0. */
  private static final class OnePartitionScorer implements InferenceActivities {
    @Override
    public InferencePlan plan(InferenceRequest r) {
      return InferencePlan.newBuilder().setPredictionsTableUri(r.getPredictionsTableUri()).setRows(10)
          .addPartitions(InferencePartition.newBuilder().setRows(10)).build();
    }

    @Override
    public ScorePartitionResult scorePartition(ScorePartitionRequest r) {
      return ScorePartitionResult.newBuilder().setRows(10).setCorrect(5).build();
    }

    @Override
    public TableRef commit(CommitPredictionsRequest r) {
      return TableRef.newBuilder().setUri(r.getPredictionsTableUri()).build();
    }

    @Override
    public void discard(DiscardPredictionsRequest r) {}
  }

  private TrainResult train(TrainRequest r) {
    if (r.hasGang()) {
      joinGang(r);
      if (r.getGang().getRank() != 0) {
        return TrainResult.newBuilder().setBatches(1).build();
      }
    }
    trained.put(r.getExperimentId(), r);
    return TrainResult.newBuilder()
        .setCheckpoint(CheckpointRef.newBuilder().setUuid(r.getExperimentId()).setUri("test://" + r.getExperimentId()))
        .putValidationMetrics("validation_loss", 0.25).setBatches(1).setAttempt(1).build();
  }
}
