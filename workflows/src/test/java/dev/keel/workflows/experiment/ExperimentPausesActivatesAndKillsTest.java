package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.testing.KeelTestEnvironments;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Control signals reach trials that are mid-step; nothing is lost and every trial is accounted for.
 */
class ExperimentPausesActivatesAndKillsTest {
  private final GatedTrainingActivities trainer = new GatedTrainingActivities();
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = KeelTestEnvironments.create(false);
    KeelTestEnvironments.control(env);
    env.newWorker(TaskQueues.train("cpu")).registerActivitiesImplementations(trainer);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private ExperimentWorkflow startGrid(String id, int concurrency) {
    ExperimentWorkflow wf =
        client.newWorkflowStub(
            ExperimentWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .build());
    WorkflowClient.start(
        wf::run,
        ExperimentRequest.newBuilder()
            .setConfig(
                ExperimentTestSupport.config(
                    """
            name: control
            data: {table: formula}
            hyperparameters:
              lr: {type: categorical, vals: [0.001, 0.01, 0.1]}
            searcher: {name: grid, metric: validation_loss, smaller_is_better: true,
                       max_length: {batches: 8}, max_concurrent_trials: %d}
            """
                        .formatted(concurrency)))
            .setOptions(
                ExperimentRunOptions.newBuilder()
                    .setWithoutCatalog(true)
                    .setHeartbeatTimeoutSeconds(2))
            .build());
    return client.newWorkflowStub(ExperimentWorkflow.class, id);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private static Map<Long, TrialState> byId(ExperimentState s) {
    Map<Long, TrialState> m = new TreeMap<>();
    s.getTrialsList().forEach(t -> m.put(t.getTrialId(), t));
    return m;
  }

  @Test
  void pausedExperimentStartsNoTrainingUntilActivated() throws Exception {
    ExperimentWorkflow wf = startGrid("exp-pause", 1);
    await("trial 1 training", () -> trainer.training.contains("trial-1"));
    wf.pause();
    await("PAUSED", () -> wf.state().getState() == ExperimentState.State.PAUSED);
    trainer.open();
    // Trial 1 finishes its step and closes; trial 2 is created paused and must not train.
    await("trial 2 created", () -> byId(wf.state()).containsKey(2L));
    TrialState second =
        client
            .newWorkflowStub(TrialWorkflow.class, TrialWorkflow.workflowId("exp-pause", 2))
            .state();
    assertEquals(TrialState.State.PAUSED, second.getState());
    assertTrue(!trainer.steps.containsKey("trial-2"), "a paused experiment trained trial 2");

    wf.activate();
    ExperimentResult result =
        client.newUntypedWorkflowStub("exp-pause").getResult(ExperimentResult.class);
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(3, result.getState().getTrialsCount());
    assertTrue(
        result.getState().getTrialsList().stream()
            .allMatch(t -> t.getState() == TrialState.State.COMPLETED));
    RecordedHistories.save(client, "exp-pause", "exp-pause");
  }

  @Test
  void killStopsRunningTrialsAndEndsTheExperimentKilled() throws Exception {
    ExperimentWorkflow wf = startGrid("exp-kill", 3);
    await("three trials training", () -> trainer.training.size() == 3);
    wf.kill();
    ExperimentResult result =
        client.newUntypedWorkflowStub("exp-kill").getResult(ExperimentResult.class);
    assertEquals(ExperimentState.State.KILLED, result.getState().getState());
    assertEquals(3, result.getState().getTrialsCount());
    assertTrue(
        result.getState().getTrialsList().stream()
            .allMatch(t -> t.getState() == TrialState.State.KILLED),
        result.getState().getTrialsList().toString());
    await("activities canceled", () -> trainer.canceled.size() == 3);
    RecordedHistories.save(client, "exp-kill", "exp-kill");
    RecordedHistories.save(client, TrialWorkflow.workflowId("exp-kill", 1), "exp-kill-trial-1");
  }

  @Test
  void killingOneTrialLetsTheSearchFinish() throws Exception {
    ExperimentWorkflow wf = startGrid("exp-kill-one", 3);
    await("three trials training", () -> trainer.training.size() == 3);
    wf.killTrial(2);
    await("trial 2 killed", () -> byId(wf.state()).get(2L).getState() == TrialState.State.KILLED);
    trainer.open();
    ExperimentResult result =
        client.newUntypedWorkflowStub("exp-kill-one").getResult(ExperimentResult.class);
    Map<Long, TrialState> trials = byId(result.getState());
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(TrialState.State.KILLED, trials.get(2L).getState());
    assertEquals(TrialState.State.COMPLETED, trials.get(1L).getState());
    assertEquals(TrialState.State.COMPLETED, trials.get(3L).getState());
    RecordedHistories.save(client, "exp-kill-one", "exp-kill-one");
    RecordedHistories.save(
        client, TrialWorkflow.workflowId("exp-kill-one", 2), "exp-kill-one-trial-2");
  }
}
