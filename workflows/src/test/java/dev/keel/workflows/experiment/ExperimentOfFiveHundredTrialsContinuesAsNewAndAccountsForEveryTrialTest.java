package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExperimentOfFiveHundredTrialsContinuesAsNewAndAccountsForEveryTrialTest {
  private final FormulaTrainingActivities trainer = new FormulaTrainingActivities(Map.of());
  private final TestWorkflowEnvironment env = ExperimentTestSupport.environment(trainer);

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void fiveHundredAshaTrialsCompleteAcrossSeveralRuns() {
    ExperimentRequest request =
        ExperimentRequest.newBuilder()
            .setConfig(
                ExperimentTestSupport.config(
                    """
            name: five-hundred
            data: {table: formula}
            hyperparameters:
              lr: {type: log, minval: -4, maxval: 0, base: 10}
            searcher:
              name: adaptive_asha
              metric: validation_loss
              smaller_is_better: true
              max_trials: 500
              max_length: {batches: 64}
              max_concurrent_trials: 32
              max_rungs: 3
              divisor: 4
            max_restarts: 0
            reproducibility: {seed: 7}
            """))
            .setOptions(
                ExperimentRunOptions.newBuilder()
                    .setWithoutCatalog(true)
                    .setContinueAsNewAfterEvents(1500))
            .build();
    ExperimentWorkflow wf =
        env.getWorkflowClient()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("exp-500")
                    .build());
    ExperimentResult result = wf.run(request);

    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(500, result.getState().getTrialsCount());
    Set<Long> ids =
        result.getState().getTrialsList().stream()
            .map(TrialState::getTrialId)
            .collect(Collectors.toSet());
    assertEquals(500, ids.size());
    assertTrue(
        result.getState().getTrialsList().stream()
            .allMatch(t -> t.getState() == TrialState.State.COMPLETED),
        "every trial closed");
    assertTrue(
        result.getState().getTrialsList().stream()
            .allMatch(t -> t.getCompletedLength().getBatches() <= 64));
    assertTrue(
        result.getState().getContinuedAsNew() >= 2,
        "continued as new " + result.getState().getContinuedAsNew());
    double best =
        result.getState().getTrialsList().stream()
            .filter(TrialState::hasBestMetric)
            .mapToDouble(TrialState::getBestMetric)
            .min()
            .orElseThrow();
    assertEquals(best, result.getState().getBestMetric());
    assertEquals(
        best, result.getBestCheckpoint().getMetricsOrThrow(CheckpointMetrics.SEARCHER_METRIC));
    assertEquals(500, trainer.calls.size(), "each trial trained");
  }
}
