package dev.keel.workflows.experiment;

import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a trial has done, as its state query shows it and its reports tell the experiment: the
 * {@link TrialState}, with the target and completed lengths also kept as values to compare and add.
 * Pure bookkeeping: sending the reports is the trial workflow's.
 */
final class TrialProgress {
  private final TrialState.Builder state =
      TrialState.newBuilder().setState(TrialState.State.ACTIVE);

  /**
   * How many of {@code state.periodic_checkpoints} a validation report has carried to the
   * experiment; an exit hands over the rest.
   */
  private int reportedPeriodic;

  private TrainingLength target;
  private TrainingLength completed;

  void begin(TrialRequest request) {
    state
        .setTrialId(request.getTrialId())
        .setWorkflowId(Workflow.getInfo().getWorkflowId())
        .setSlots(request.getConfig().getResources().getSlotsPerTrial())
        .putAllHparams(request.getHparamsMap());
    setTarget(TrainingLength.of(request.getTargetLength()));
    setCompleted(TrainingLength.zero(target.unit()));
    if (request.hasStartFrom()) {
      state.setSourceCheckpoint(request.getStartFrom()).setLatestCheckpoint(request.getStartFrom());
    }
  }

  long trialId() {
    return state.getTrialId();
  }

  int restarts() {
    return state.getRestarts();
  }

  Optional<CheckpointRef> latestCheckpoint() {
    return state.hasLatestCheckpoint()
        ? Optional.of(state.getLatestCheckpoint())
        : Optional.empty();
  }

  void setState(TrialState.State s) {
    state.setState(s);
  }

  /** What a gang of ranks waits for (slots, peers), empty once it trains. */
  void setWaiting(String waiting) {
    state.setWaiting(waiting);
  }

  /** The searcher may lengthen a trial, never shorten it. */
  void extendTarget(TrainingLength length) {
    setTarget(target.max(length));
  }

  boolean hasLengthToGo() {
    return completed.isShorterThan(target);
  }

  /**
   * The end of the next step: the next validation when there is a period, else the target.
   *
   * @param validationPeriod none: validate only where the searcher asks
   */
  TrainingLength nextStepEnd(Optional<TrainingLength> validationPeriod) {
    return validationPeriod.map(p -> target.min(completed.plus(p))).orElse(target);
  }

  /** Attempts after the first were restarts; the ranks are those of the attempt that finished. */
  void stepTrained(TrainResult result) {
    state
        .setRestarts(state.getRestarts() + Math.max(0, result.getAttempt() - 1))
        .clearRanks()
        .addAllRanks(result.getRanksList());
  }

  /** A failed step's checkpoints, which the exit report carries to the experiment. */
  void stepFailed(List<CheckpointRef> written) {
    state.addAllPeriodicCheckpoints(written);
  }

  /** Temporal gave up retrying the step: every restart was spent. */
  void restartsUsedUp(int maxRestarts) {
    state.setRestarts(maxRestarts);
  }

  /** A validated step, and the report that tells the experiment about it. */
  TrialReport validated(
      TrainResult result, TrainingLength length, double metric, boolean smallerIsBetter) {
    state.addAllPeriodicCheckpoints(result.getPeriodicCheckpointsList());
    reportedPeriodic = state.getPeriodicCheckpointsCount();
    setCompleted(length);
    state
        .setLatestMetric(metric)
        .setLatestCheckpoint(result.getCheckpoint())
        .addCheckpoints(
            result.getCheckpoint().toBuilder()
                .putMetrics(CheckpointMetrics.SEARCHER_METRIC, metric)
                .build());
    if (!state.hasBestMetric()
        || (smallerIsBetter ? metric < state.getBestMetric() : metric > state.getBestMetric())) {
      state.setBestMetric(metric);
    }
    if (result.hasModel()) {
      state.setModel(result.getModel());
    }
    TrialReport.Validation.Builder validation =
        TrialReport.Validation.newBuilder()
            .setLength(length.toProto())
            .setMetric(metric)
            .putAllMetrics(reportedMetrics(result))
            .setCheckpoint(result.getCheckpoint())
            .setBatches(result.getBatches())
            .setRestarts(state.getRestarts())
            .addAllRanks(result.getRanksList())
            .addAllPeriodicCheckpoints(result.getPeriodicCheckpointsList());
    if (result.hasModel()) {
      validation.setModel(result.getModel());
    }
    return TrialReport.newBuilder()
        .setTrialId(state.getTrialId())
        .setIntermediate(length.isShorterThan(target))
        .setValidation(validation)
        .build();
  }

  /** The searcher closed the trial and it trained the whole target. */
  TrialReport completed() {
    state.setState(TrialState.State.COMPLETED);
    return TrialReport.newBuilder()
        .setTrialId(state.getTrialId())
        .setClosed(TrialReport.Closed.getDefaultInstance())
        .build();
  }

  /**
   * The trial ends for {@code reason}; the report hands over the checkpoints of failed steps, which
   * no validation report carried to the experiment.
   */
  TrialReport exited(TrialReport.Exit.Reason reason, String message) {
    state.setState(TrialStates.afterExit(reason)).setError(message == null ? "" : message);
    List<CheckpointRef> unreported =
        state
            .getPeriodicCheckpointsList()
            .subList(reportedPeriodic, state.getPeriodicCheckpointsCount());
    return TrialReport.newBuilder()
        .setTrialId(state.getTrialId())
        .setExit(
            TrialReport.Exit.newBuilder()
                .setReason(reason)
                .setMessage(state.getError())
                .setRestarts(state.getRestarts())
                .addAllWrittenCheckpoints(unreported))
        .build();
  }

  TrialState snapshot() {
    return state.build();
  }

  /** With the ranks of the gang training now, which a query shows before the step ends. */
  TrialState snapshot(List<RankInfo> liveRanks) {
    return liveRanks.isEmpty()
        ? state.build()
        : state.build().toBuilder().clearRanks().addAllRanks(liveRanks).build();
  }

  /**
   * The step's validation metrics and its training loss (the trainer's mean of the last batches),
   * under the trainer's name for it, so that the catalog holds training-loss curves next to the
   * validation ones.
   */
  private static Map<String, Double> reportedMetrics(TrainResult result) {
    Map<String, Double> metrics = new TreeMap<>(result.getValidationMetricsMap());
    // NaN: nothing trained in the step; 0: proto3's unset, a trainer that reported no loss
    if (Double.isFinite(result.getFinalLoss()) && result.getFinalLoss() != 0.0) {
      metrics.putIfAbsent(CheckpointMetrics.TRAIN_LOSS, result.getFinalLoss());
    }
    return metrics;
  }

  private void setTarget(TrainingLength length) {
    target = length;
    state.setTargetLength(length.toProto());
  }

  private void setCompleted(TrainingLength length) {
    completed = length;
    state.setCompletedLength(length.toProto());
  }
}
