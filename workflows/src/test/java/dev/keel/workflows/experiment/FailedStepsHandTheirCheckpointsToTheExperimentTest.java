package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.CheckpointStorage;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialState;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.KeelWorkflows;
import io.temporal.activity.Activity;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A step that fails for good after committing checkpoints between validations still hands them to
 * the experiment, so the catalog and checkpoint GC know them: from the failure's details when the
 * trainer reports an error, from the last heartbeat when the worker went silent.
 */
class FailedStepsHandTheirCheckpointsToTheExperimentTest {
  private final TestWorkflowEnvironment env =
      TestWorkflowEnvironment.newInstance(
          TestEnvironmentOptions.newBuilder()
              .setWorkflowClientOptions(
                  WorkflowClientOptions.newBuilder()
                      .setDataConverter(KeelDataConverter.get())
                      .build())
              .build());

  private static CheckpointRef checkpoint(TrainRequest r, long batches) {
    String uuid = r.getTrialId() + "-" + batches;
    return CheckpointRef.newBuilder()
        .setUuid(uuid)
        .setUri("test://" + uuid)
        .setTrialId(r.getTrialId())
        .setExperimentId(r.getExperimentId())
        .setBatches(batches)
        .setSizeBytes(10)
        .build();
  }

  /** Holds trial-2's attempt silent until the test ends. */
  private final CountDownLatch testDone = new CountDownLatch(1);

  /** trial-1 fails with its checkpoints as details; trial-2 heartbeats them and goes silent. */
  final class FailingTrainer implements TrainingActivities {
    @Override
    public TrainResult train(TrainRequest r) {
      TrainProgress written =
          TrainProgress.newBuilder()
              .addWrittenCheckpoints(checkpoint(r, 5))
              .addWrittenCheckpoints(checkpoint(r, 10))
              .build();
      if (r.getTrialId().equals("trial-1")) {
        throw ApplicationFailure.newBuilder()
            .setMessage("No space left on device")
            .setType("java.io.IOException")
            .setDetails(written)
            .build();
      }
      Activity.getExecutionContext().heartbeat(written);
      try {
        // silent past the 1 s heartbeat timeout (the test server skips the time): a dead worker
        testDone.await(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("too late");
    }
  }

  @AfterEach
  void stop() {
    testDone.countDown();
    env.close();
  }

  @Test
  void checkpointsOfFailedStepsReachTheExperiment() {
    KeelSearchAttributes.ALL.forEach(a -> env.registerSearchAttribute(a.name(), a.type()));
    KeelWorkflows.register(env.newWorker(TaskQueues.CONTROL));
    env.newWorker(TaskQueues.train("cpu")).registerActivitiesImplementations(new FailingTrainer());
    env.start();
    ExperimentWorkflow wf =
        env.getWorkflowClient()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("exp-failed-steps")
                    .build());
    ExperimentResult result =
        wf.run(
            ExperimentRequest.newBuilder()
                .setConfig(
                    ExperimentConfigLoaders.experimentLoader()
                        .fromYaml(
                            """
            name: failed-steps
            data: {table: formula}
            hyperparameters:
              lr: {type: categorical, vals: [0.01, 0.1]}
            searcher: {name: grid, metric: validation_loss, smaller_is_better: true, max_length: {batches: 20}}
            min_checkpoint_period: {batches: 5}
            max_restarts: 0
            """))
                .setOptions(
                    ExperimentRunOptions.newBuilder()
                        .setWithoutCatalog(true)
                        .setHeartbeatTimeoutSeconds(1))
                .build());

    Map<Long, TrialState> trials = new TreeMap<>();
    result.getState().getTrialsList().forEach(t -> trials.put(t.getTrialId(), t));
    assertEquals(2, trials.size());
    for (TrialState t : trials.values()) {
      assertEquals(TrialState.State.ERRORED, t.getState(), t.toString());
      assertEquals(
          List.of(5L, 10L),
          t.getPeriodicCheckpointsList().stream().map(CheckpointRef::getBatches).toList(),
          t.toString());
      assertEquals(0, t.getCheckpointsCount(), "never validated");
    }
    assertTrue(
        trials.get(1L).getError().contains("No space left on device"), trials.get(1L).getError());
    // What GC does with them: the latest of each trial is kept, the earlier ones go.
    List<String> deleted =
        new CheckpointGcPolicy(
                ConfigDefaults.withDefaults(CheckpointStorage.getDefaultInstance()), false)
            .delete(List.copyOf(trials.values())).stream().map(CheckpointRef::getUuid).toList();
    assertEquals(List.of("trial-1-5", "trial-2-5"), deleted);
    RecordedHistories.save(
        env.getWorkflowClient(),
        TrialWorkflow.workflowId("exp-failed-steps", 1),
        "exp-failed-steps-trial-1");
  }
}
