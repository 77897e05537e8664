package dev.keel.workflows.pipeline;

import com.google.protobuf.Value;
import dev.keel.activities.FailureTypes;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.training.TrainRequests;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;

/**
 * The trial an experiment found best: its hyperparameters and the checkpoint of its best
 * validation, with the length it had trained there (in the searcher's unit).
 */
record BestTrial(
    String experimentId,
    long trialId,
    Map<String, Value> hparams,
    CheckpointRef checkpoint,
    TrainingLength length,
    double metric) {

  /**
   * @throws ApplicationFailure non-retryable when the experiment did not complete or kept no
   *     checkpoint: there is nothing to train on, register or score
   */
  static BestTrial of(String experimentId, ExperimentResult result, LengthUnit unit) {
    ExperimentState state = result.getState();
    if (state.getState() != ExperimentState.State.COMPLETED || !result.hasBestCheckpoint()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "experiment "
              + experimentId
              + " ended "
              + state.getState()
              + (result.hasBestCheckpoint() ? "" : " without a validated checkpoint")
              + (state.getError().isEmpty() ? "" : ": " + state.getError()),
          FailureTypes.SEARCH_FOUND_NO_MODEL);
    }
    CheckpointRef best = result.getBestCheckpoint();
    TrialState trial =
        state.getTrialsList().stream()
            .filter(t -> TrainRequests.trialId(t.getTrialId()).equals(best.getTrialId()))
            .findFirst()
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "experiment "
                            + experimentId
                            + ": its best checkpoint "
                            + best.getUuid()
                            + " names "
                            + best.getTrialId()
                            + ", which it does not list",
                        FailureTypes.SEARCH_FOUND_NO_MODEL));
    long length = Math.round(best.getMetricsOrDefault(CheckpointMetrics.LENGTH, 0));
    return new BestTrial(
        experimentId,
        trial.getTrialId(),
        trial.getHparamsMap(),
        best,
        new TrainingLength(length, unit),
        best.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN));
  }
}
