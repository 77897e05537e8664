package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.util.JsonFormat;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.KeelSearchAttributes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.converter.GlobalDataConverter;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TrialRestartsFromCheckpointAndInvalidHyperparametersAreNotRetriedTest {
  private final FormulaTrainingActivities trainer =
      new FormulaTrainingActivities(Map.of("trial-1", 2, "trial-2", 10));
  private final TestWorkflowEnvironment env = ExperimentTestSupport.environment(trainer);

  @AfterEach
  void stop() {
    env.close();
  }

  private ExperimentResult run(String id, String yaml) {
    ExperimentWorkflow wf =
        env.getWorkflowClient()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build());
    return wf.run(
        ExperimentRequest.newBuilder()
            .setConfig(ExperimentTestSupport.config(yaml))
            .setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true))
            .build());
  }

  @Test
  void crashesWithinMaxRestartsRecoverAndTheRestAreErrorsOrInvalid() {
    ExperimentResult result =
        run(
            "exp-restarts",
            """
        name: restarts
        data: {table: formula}
        hyperparameters:
          lr: {type: categorical, vals: [0.01, 0.1, 10]}
        searcher: {name: grid, metric: validation_loss, smaller_is_better: true, max_length: {batches: 8}}
        max_restarts: 3
        """);
    Map<Long, TrialState> trials = new TreeMap<>();
    result.getState().getTrialsList().forEach(t -> trials.put(t.getTrialId(), t));
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());

    // Trial 1 crashed twice and resumed: 2 restarts, 3 calls, completed.
    assertEquals(TrialState.State.COMPLETED, trials.get(1L).getState());
    assertEquals(2, trials.get(1L).getRestarts());
    assertEquals(3, trainer.calls.get("trial-1").get());
    // Trial 2 kept crashing: 1 attempt + 3 restarts, then ERRORED with the worker's message.
    assertEquals(TrialState.State.ERRORED, trials.get(2L).getState());
    assertEquals(4, trainer.calls.get("trial-2").get());
    assertTrue(trials.get(2L).getError().contains("crashed"), trials.get(2L).getError());
    // Trial 3 has lr=10: invalid hyperparameters are reported once, never retried.
    assertEquals(TrialState.State.INVALID_HP, trials.get(3L).getState());
    assertEquals(1, trainer.calls.get("trial-3").get());
    assertTrue(trials.get(3L).getError().contains("loss is NaN"), trials.get(3L).getError());
    assertEquals(1L, result.getState().getBestTrialId());
    RecordedHistories.save(
        env.getWorkflowClient(),
        TrialWorkflow.workflowId("exp-restarts", 2),
        "exp-restarts-trial-2");
    RecordedHistories.save(
        env.getWorkflowClient(),
        TrialWorkflow.workflowId("exp-restarts", 3),
        "exp-restarts-trial-3");
  }

  @Test
  void ashaWithCrashingTrialsStillFinishesAndIsRecordedForReplay() {
    ExperimentResult result =
        run(
            "exp-asha-restarts",
            """
        name: asha-restarts
        data: {table: formula}
        hyperparameters:
          lr: {type: log, minval: -4, maxval: -1, base: 10}
        searcher: {name: adaptive_asha, metric: validation_loss, smaller_is_better: true, max_trials: 12,
                   max_length: {batches: 64}, max_rungs: 3, divisor: 4, max_concurrent_trials: 4}
        max_restarts: 3
        reproducibility: {seed: 11}
        """);
    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(12, result.getState().getTrialsCount());
    TrialState first =
        result.getState().getTrialsList().stream()
            .filter(t -> t.getTrialId() == 1)
            .findFirst()
            .orElseThrow();
    assertEquals(2, first.getRestarts());
    RecordedHistories.save(env.getWorkflowClient(), "exp-asha-restarts", "exp-asha-restarts");
    RecordedHistories.save(
        env.getWorkflowClient(),
        TrialWorkflow.workflowId("exp-asha-restarts", 1),
        "exp-asha-restarts-trial-1");
  }

  @Test
  void experimentSearchAttributesShowStateAndBestMetric() {
    ExperimentResult result =
        run(
            "exp-visible",
            """
        name: visible
        data: {table: formula}
        hyperparameters: {lr: 0.01}
        searcher: {name: single, metric: validation_loss, smaller_is_better: true, max_length: {batches: 4}}
        """);
    var info =
        env.getWorkflowServiceStubs()
            .blockingStub()
            .describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder()
                    .setNamespace(env.getNamespace())
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId("exp-visible"))
                    .build())
            .getWorkflowExecutionInfo()
            .getSearchAttributes()
            .getIndexedFieldsMap();
    var converter = GlobalDataConverter.get();
    assertEquals(
        "COMPLETED",
        converter.fromPayload(
            info.get(KeelSearchAttributes.STATE.getName()), String.class, String.class));
    assertEquals(
        "visible",
        converter.fromPayload(
            info.get(KeelSearchAttributes.EXPERIMENT.getName()), String.class, String.class));
    assertEquals(
        result.getState().getBestMetric(),
        converter.fromPayload(
            info.get(KeelSearchAttributes.BEST_METRIC.getName()), Double.class, Double.class));
  }

  @Test
  void invalidConfigThatSlipsPastTheClientFailsTheExperimentWithEveryFieldPath() throws Exception {
    // Built without the validating loader, as a client of another language might send it.
    ExperimentConfig.Builder bad = ExperimentConfig.newBuilder();
    JsonFormat.parser()
        .merge(
            """
        {"name": "bad", "data": {"table": "formula"},
         "hyperparameters": {"lr": {"type": "log", "minval": -1, "maxval": -4, "base": 0}},
         "searcher": {"name": "adaptive_asha", "metric": "validation_loss", "max_trials": 4, "divisor": 1,
                      "max_length": {"batches": 8}}}
        """,
            bad);
    ExperimentWorkflow wf =
        env.getWorkflowClient()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("exp-bad")
                    .build());
    WorkflowFailedException e =
        assertThrows(
            WorkflowFailedException.class,
            () -> wf.run(ExperimentRequest.newBuilder().setConfig(bad).build()));
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, e.getCause());
    assertEquals(FailureTypes.INVALID_EXPERIMENT_CONFIG, failure.getType());
    for (String expected :
        List.of(
            "hyperparameters.lr.base: must be > 0 and != 1, got 0",
            "hyperparameters.lr.minval: must be <= maxval (-4), got -1",
            "searcher.divisor: must be >= 2, got 1")) {
      assertTrue(failure.getOriginalMessage().contains(expected), failure.getOriginalMessage());
    }
  }
}
