package dev.keel.workflows.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.drift.DriftActivities;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.activities.schedule.ScheduleActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.DriftAction;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ReferenceStatisticsRequest;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.StagedDataFile;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TriggerScheduleRequest;
import dev.keel.workflows.experiment.RecordedHistories;
import dev.keel.workflows.testing.InMemoryModelRegistry;
import dev.keel.workflows.testing.KeelTestEnvironments;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Inference workflow's orchestration with in-memory activities (the real ones are tested in the
 * inference module): partitions scored a few at a time and committed once in partition order, a
 * failed partition's run discarded, an evaluate-only run committing nothing, and the drift check
 * after scoring. Its runs are also recorded histories that later workflow code must replay.
 */
class InferenceScoresPartitionsCommitsOnceAndChecksDriftTest {
  private static final TableRef DATA =
      TableRef.newBuilder().setUri("file:///t/fashion").setVersion(3).build();
  private static final TableRef TRAINING =
      TableRef.newBuilder().setUri("file:///t/fashion").setVersion(2).build();

  /** Ten rows per partition: label 0 predicted nine times, label 1 once; eight right. */
  private final Scorer scorer = new Scorer();

  private final Drift drift = new Drift();
  private final Schedules schedules = new Schedules();
  private final InMemoryModelRegistry registry = new InMemoryModelRegistry();
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env).registerActivitiesImplementations(drift, schedules, registry);
    env.newWorker(TaskQueues.INFER).registerActivitiesImplementations(scorer);
    env.start();
    client = env.getWorkflowClient();
    registry.add(
        ModelVersion.newBuilder().setName("fashion").setVersion(2).setData(TRAINING).build());
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void fivePartitionsTwoAtATimeAreCommittedOnceAndADriftTriggersTheSchedule() {
    InferenceResult result =
        run(
            "infer-drift",
            request()
                .setMaxParallelPartitions(2)
                .setDrift(
                    DriftConfig.newBuilder()
                        .setThreshold(0.2)
                        .setMeasure("total_variation")
                        .setOnDrift(DriftAction.newBuilder().setTriggerSchedule("retrain")))
                .build());
    RecordedHistories.save(client, "infer-drift", "infer-drift");

    assertEquals(50, result.getRows());
    assertEquals(0.8, result.getAccuracy(), 1e-9);
    assertEquals(5, result.getPartitions());
    assertEquals("file:///t/predictions", result.getPredictions().getUri());
    assertEquals(1, scorer.commits.size());
    assertEquals(
        List.of("p0", "p1", "p2", "p3", "p4"),
        scorer.commits.get(0).getFilesList().stream().map(StagedDataFile::getPath).toList(),
        "files in partition order");
    assertTrue(scorer.discards.isEmpty());
    assertEquals(TRAINING, drift.references.get(0).getTable(), "the model version's data");
    assertTrue(result.getDrift().getDrifted(), result.getDrift().toString());
    assertEquals(0.4, result.getDrift().getScore(), 1e-9);
    assertEquals("retrain", result.getDrift().getTriggeredSchedule());
    assertEquals(1, schedules.triggered.size());
    assertEquals(1, drift.records.size());
    assertEquals(result.getPredictions(), drift.records.get(0).getPredictions());
  }

  @Test
  void aFailedPartitionDiscardsTheRunsStagedFilesAndCommitsNothing() {
    scorer.failing = 2;
    WorkflowFailedException e =
        assertThrows(
            WorkflowFailedException.class,
            () -> run("infer-failed", request().setMaxParallelPartitions(2).build()));
    RecordedHistories.save(client, "infer-failed", "infer-failed");

    Throwable c = e;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    assertEquals(
        FailureTypes.CORRUPT_CHECKPOINT, assertInstanceOf(ApplicationFailure.class, c).getType());
    assertTrue(scorer.commits.isEmpty());
    assertEquals(1, scorer.discards.size());
  }

  @Test
  void anEvaluateOnlyRunCommitsNothingAndAFailedTriggerOnlyMarksTheReport() {
    schedules.missing = true;
    InferenceResult result =
        run(
            "infer-evaluate",
            request()
                .setPredictionsTableUri("")
                .setEvaluateOnly(true)
                .setDrift(
                    DriftConfig.newBuilder()
                        .setThreshold(0.2)
                        .setMeasure("total_variation")
                        .setReference(TRAINING)
                        .setOnDrift(DriftAction.newBuilder().setTriggerSchedule("gone")))
                .build());
    RecordedHistories.save(client, "infer-evaluate", "infer-evaluate");

    assertEquals(50, result.getRows());
    assertFalse(result.hasPredictions());
    assertTrue(scorer.commits.isEmpty());
    assertEquals(2, result.getClassesCount(), result.getClassesList().toString());
    assertTrue(result.getDrift().getDrifted());
    assertEquals("", result.getDrift().getTriggeredSchedule());
    assertFalse(result.getDrift().getTriggerError().isEmpty());
    assertFalse(drift.records.get(0).hasPredictions());
  }

  private InferenceResult run(String id, InferenceRequest request) {
    return client
        .newWorkflowStub(
            InferenceWorkflow.class,
            WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build())
        .run(request);
  }

  private static InferenceRequest.Builder request() {
    return InferenceRequest.newBuilder()
        .setCheckpoint(CheckpointRef.newBuilder().setUuid("c-2").setUri("registry://fashion/2/"))
        .setData(DATA)
        .setPredictionsTableUri("file:///t/predictions")
        .setModelVersion("fashion/2");
  }

  /** Five partitions of ten rows; {@link #failing} names one that fails for good. */
  private static final class Scorer implements InferenceActivities {
    final List<CommitPredictionsRequest> commits = Collections.synchronizedList(new ArrayList<>());
    final List<DiscardPredictionsRequest> discards =
        Collections.synchronizedList(new ArrayList<>());
    volatile int failing = -1;

    @Override
    public InferencePlan plan(InferenceRequest r) {
      InferencePlan.Builder plan =
          InferencePlan.newBuilder()
              .setPredictionsTableUri(r.getPredictionsTableUri())
              .setRows(50)
              .addClassNames("shirt")
              .addClassNames("shoe");
      for (int i = 0; i < 5; i++) {
        plan.addPartitions(
            InferencePartition.newBuilder().setIndex(i).setFirstRow(10L * i).setRows(10));
      }
      return plan.build();
    }

    @Override
    public ScorePartitionResult scorePartition(ScorePartitionRequest r) {
      int i = r.getPartition().getIndex();
      if (i == failing) {
        throw ApplicationFailure.newNonRetryableFailure(
            "checkpoint c-2 is corrupt", FailureTypes.CORRUPT_CHECKPOINT);
      }
      return ScorePartitionResult.newBuilder()
          .setIndex(i)
          .addFiles(StagedDataFile.newBuilder().setPath("p" + i).setSize(100))
          .setRows(10)
          .setCorrect(8)
          .addFeatureSums(5)
          .addFeatureSquares(3)
          .addPredictedLabelCounts(9)
          .addPredictedLabelCounts(1)
          .addLabelRows(5)
          .addLabelRows(5)
          .addLabelCorrect(5)
          .addLabelCorrect(3)
          .build();
    }

    @Override
    public TableRef commit(CommitPredictionsRequest r) {
      commits.add(r);
      return TableRef.newBuilder().setUri(r.getPredictionsTableUri()).setVersion(1).build();
    }

    @Override
    public void discard(DiscardPredictionsRequest r) {
      discards.add(r);
    }
  }

  /** Training labels half and half, against the run's nine to one: total variation 0.4. */
  private static final class Drift implements DriftActivities {
    final List<ReferenceStatisticsRequest> references =
        Collections.synchronizedList(new ArrayList<>());
    final List<DriftRecord> records = Collections.synchronizedList(new ArrayList<>());

    @Override
    public InputStatistics referenceStatistics(ReferenceStatisticsRequest r) {
      references.add(r);
      return InputStatistics.newBuilder()
          .setRows(100)
          .addMean(0.5)
          .addVariance(0.05)
          .addPredictedLabelCounts(50)
          .addPredictedLabelCounts(50)
          .build();
    }

    @Override
    public void record(DriftRecord r) {
      records.add(r);
    }
  }

  private static final class Schedules implements ScheduleActivities {
    final List<TriggerScheduleRequest> triggered = Collections.synchronizedList(new ArrayList<>());
    volatile boolean missing;

    @Override
    public void trigger(TriggerScheduleRequest r) {
      if (missing) {
        throw ApplicationFailure.newNonRetryableFailure(
            "no schedule '" + r.getScheduleId() + "'", FailureTypes.SCHEDULE_NOT_FOUND);
      }
      triggered.add(r);
    }
  }
}
