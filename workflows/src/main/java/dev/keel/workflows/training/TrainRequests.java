package dev.keel.workflows.training;

import com.google.protobuf.Value;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import io.temporal.workflow.Workflow;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the request of every training activity. Lengths go to the worker with their unit: only it
 * knows the batch size and the number of training rows that turn records or epochs into batches.
 */
public final class TrainRequests {
  /**
   * The change that chose validation rows by row-id hash ({@code TrainRequest.validation}):
   * requests of runs started before it keep the table-order cut, so their trials resume on the rows
   * they began with.
   */
  static final String VALIDATION_BY_ROW_ID = "validation-rows-by-row-id-hash";

  private TrainRequests() {}

  /**
   * Called from workflow code only (it records which validation rule the run uses).
   *
   * @param config the experiment config with {@code ConfigDefaults} applied
   * @param trial the trial's number in its experiment (a pipeline trains trial 1)
   * @param target how far to train, counted from {@code baseBatches}
   * @param startFrom the checkpoint to resume or fork from; empty: from scratch
   * @param baseBatches batches the target counts from (a fine-tuning source's), else 0
   */
  public static TrainRequest of(
      String experimentId,
      long trial,
      ExperimentConfig config,
      TableRef data,
      Map<String, Value> hparams,
      long seed,
      TrainingLength target,
      Optional<CheckpointRef> startFrom,
      long baseBatches) {
    TrainRequest.Builder r =
        TrainRequest.newBuilder()
            .setExperimentId(experimentId)
            .setTrialId(trialId(trial))
            .setData(data)
            .setValidationFraction(config.getData().getValidationFraction())
            .setModel(config.getModel())
            .putAllHparams(hparams)
            .setSeed(seed)
            .setTargetLength(target.toProto())
            .setBaseBatches(baseBatches)
            .setCheckpointPeriod(config.getMinCheckpointPeriod())
            .setCheckpointRoot(config.getCheckpointStorage().getStoragePath());
    if (Workflow.getVersion(VALIDATION_BY_ROW_ID, Workflow.DEFAULT_VERSION, 1) >= 1) {
      r.setValidation(config.getValidation());
    }
    startFrom.ifPresent(r::setStartFrom);
    return r.build();
  }

  /** The trial id of checkpoints and train requests: {@code trial-<n>}. */
  public static String trialId(long trial) {
    return "trial-" + trial;
  }
}
