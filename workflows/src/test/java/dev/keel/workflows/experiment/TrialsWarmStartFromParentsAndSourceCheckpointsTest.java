package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrialState;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PBT forks and fine-tuning start from a checkpoint, and the records point to their source. */
class TrialsWarmStartFromParentsAndSourceCheckpointsTest {
  private final FormulaTrainingActivities trainer = new FormulaTrainingActivities(Map.of());
  private final TestWorkflowEnvironment env = ExperimentTestSupport.environment(trainer);

  @AfterEach
  void stop() {
    env.close();
  }

  private ExperimentResult run(String id, ExperimentRequest.Builder request) {
    ExperimentWorkflow wf =
        env.getWorkflowClient()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build());
    return wf.run(
        request.setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true)).build());
  }

  @Test
  void pbtChildrenStartFromTheirParentsCheckpointAndInheritItsLength() {
    ExperimentResult result =
        run(
            "exp-pbt",
            ExperimentRequest.newBuilder()
                .setConfig(
                    ExperimentTestSupport.config(
                        """
        name: pbt
        data: {table: formula}
        hyperparameters:
          lr: {type: log, minval: -4, maxval: 0, base: 10}
        searcher: {name: pbt, metric: validation_loss, smaller_is_better: true, max_trials: 12,
                   population_size: 4, truncate_fraction: 0.25, max_length: {batches: 30}}
        reproducibility: {seed: 3}
        """)));
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    Map<Long, TrialState> trials = new TreeMap<>();
    result.getState().getTrialsList().forEach(t -> trials.put(t.getTrialId(), t));
    List<TrialState> forks =
        trials.values().stream().filter(t -> t.getParentTrialId() != 0).toList();
    assertFalse(forks.isEmpty(), "PBT forked no trial");
    for (TrialState fork : forks) {
      TrialState parent = trials.get(fork.getParentTrialId());
      assertTrue(
          parent.getCheckpointsList().stream()
              .anyMatch(c -> c.getUuid().equals(fork.getSourceCheckpoint().getUuid())),
          "trial "
              + fork.getTrialId()
              + " forks from a checkpoint of trial "
              + parent.getTrialId());
      TrainRequest first =
          trainer.requests.stream()
              .filter(r -> r.getTrialId().equals("trial-" + fork.getTrialId()))
              .findFirst()
              .orElseThrow();
      assertEquals(fork.getSourceCheckpoint().getUuid(), first.getStartFrom().getUuid());
      assertEquals(0, first.getBaseBatches(), "a PBT fork's lengths count the inherited training");
    }
  }

  @Test
  void fineTuningStartsEveryTrialFromTheGivenCheckpointAndCountsLengthFromIt() {
    CheckpointRef source =
        CheckpointRef.newBuilder()
            .setUuid("source-ckpt")
            .setUri("test://source-ckpt")
            .setBatches(100)
            .build();
    ExperimentResult result =
        run(
            "exp-finetune",
            ExperimentRequest.newBuilder()
                .setWarmStart(source)
                .setConfig(
                    ExperimentTestSupport.config(
                        """
        name: finetune
        data: {table: formula, version: 4}
        hyperparameters: {lr: 0.01}
        searcher: {name: single, metric: validation_loss, smaller_is_better: true, max_length: {batches: 8}}
        """)));
    TrialState trial = result.getState().getTrials(0);
    assertEquals("source-ckpt", trial.getSourceCheckpoint().getUuid());
    TrainRequest request = trainer.requests.get(0);
    assertEquals("source-ckpt", request.getStartFrom().getUuid());
    assertEquals(100, request.getBaseBatches());
    assertEquals(4, request.getData().getVersion());
    assertEquals(108, result.getBestCheckpoint().getBatches());
  }
}
