package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.search.ValidationProbe;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The workflow checks its input once, at start (the path {@code temporal workflow start} takes),
 * and builds the searcher from that check; the runs after a continue-as-new restore the searcher
 * without validating.
 */
class ExperimentValidatesOnceAtStartAndNeverAtContinueAsNewTest {
  private final TestWorkflowEnvironment env =
      ExperimentTestSupport.environment(new FormulaTrainingActivities(Map.of()));

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void oneValidationForARunThatContinuesAsNew() {
    ExperimentRequest request =
        ExperimentRequest.newBuilder()
            .setConfig(
                ExperimentTestSupport.config(
                    """
            name: validated-once
            data: {table: formula}
            hyperparameters:
              lr: {type: log, minval: -4, maxval: 0, base: 10}
            searcher: {name: random, metric: validation_loss, max_trials: 12, max_concurrent_trials: 3,
                       max_length: {batches: 8}}
            reproducibility: {seed: 3}
            """))
            .setOptions(
                ExperimentRunOptions.newBuilder()
                    .setWithoutCatalog(true)
                    .setContinueAsNewAfterEvents(120))
            .build();
    ExperimentWorkflow wf =
        env.getWorkflowClient()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("validated-once")
                    .build());
    ExperimentResult result;
    WorkflowExecution first;
    try (ValidationProbe validations = ValidationProbe.countingConfigsNamed("validated-once")) {
      first = WorkflowClient.start(wf::run, request);
      result = WorkflowStub.fromTyped(wf).getResult(ExperimentResult.class);
      assertEquals(1, validations.count(), "validated at start only");
    }
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(12, result.getState().getTrialsCount());
    assertTrue(
        result.getState().getContinuedAsNew() >= 1,
        "continued as new " + result.getState().getContinuedAsNew());
    // the run that continues as new, and the last one, which began from the carry
    RecordedHistories.save(
        env.getWorkflowClient(), "validated-once", first.getRunId(), "validated-once~first");
    RecordedHistories.save(env.getWorkflowClient(), "validated-once", "validated-once~last");
  }
}
