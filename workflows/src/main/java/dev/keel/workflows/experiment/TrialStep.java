package dev.keel.workflows.experiment;

import dev.keel.activities.train.TrainingActivities;
import dev.keel.activities.train.TrainingActivityOptions;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialRequest;
import dev.keel.workflows.training.GangTraining;
import dev.keel.workflows.training.TrainRequests;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

/**
 * A trial's training steps: each is one training activity, or for a trial of several slots a gang
 * of them ({@link GangTraining}), resumed from the trial's latest checkpoint and run in a
 * cancellation scope, so that a kill stops it at once. Temporal's retries of a step are the trial's
 * restarts.
 */
final class TrialStep {
  private final TrialRequest request;
  private final GangTraining gang;
  private CancellationScope running;

  TrialStep(TrialRequest request, GangTraining gang) {
    this.request = request;
    this.gang = gang;
  }

  /**
   * Trains to {@code length}; throws {@code CanceledFailure} when killed, {@code ActivityFailure}
   * when the step failed for good.
   */
  TrainResult train(TrialProgress progress, TrainingLength length) {
    ExperimentConfig config = request.getConfig();
    String summary = TrialMessages.step(progress.trialId(), length);
    Duration heartbeat = Duration.ofSeconds(request.getHeartbeatTimeoutSeconds());
    TrainingActivities trainer =
        Workflow.newActivityStub(
            TrainingActivities.class,
            TrainingActivityOptions.forTrial(
                config.getResources().getResourcePool(),
                new TrainingActivityOptions.Restarts(config.getMaxRestarts(), progress.restarts()),
                heartbeat,
                summary));
    // Fine-tuning / continue: lengths count from the source checkpoint; a PBT fork inherits its
    // parent's.
    long baseBatches =
        request.hasStartFrom() && request.getParentTrialId() == 0
            ? request.getStartFrom().getBatches()
            : 0;
    TrainRequest train =
        TrainRequests.of(
            request.getExperimentId(),
            request.getTrialId(),
            config,
            request.getData(),
            request.getHparamsMap(),
            config.getReproducibility().getSeed() + request.getTrialId(),
            length,
            progress.latestCheckpoint(),
            baseBatches);
    Promise<TrainResult>[] promise = new Promise[1];
    int slots = config.getResources().getSlotsPerTrial();
    running =
        Workflow.newCancellationScope(
            () ->
                promise[0] =
                    slots > 1
                        ? Async.function(
                            () ->
                                gang.train(
                                    train,
                                    slots,
                                    config.getResources().getResourcePool(),
                                    heartbeat,
                                    config.getMaxRestarts() - progress.restarts(),
                                    summary))
                        : Async.function(trainer::train, train));
    running.run();
    try {
      TrainResult result = promise[0].get();
      progress.stepTrained(result);
      return result;
    } finally {
      running = null;
    }
  }

  /** Cancels the step in flight, if any. */
  void cancel() {
    if (running != null) {
      running.cancel(TrialMessages.STEP_CANCELED);
    }
  }

  /** The ranks of the gang training now; none between steps or for a trial of one slot. */
  List<RankInfo> liveRanks() {
    return gang.currentRanks();
  }
}
