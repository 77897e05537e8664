package dev.keel.workflows.experiment;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.activities.train.TrainingActivityOptions;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.training.GangTraining;
import dev.keel.workflows.training.TrainRequests;
import dev.keel.workflows.training.TrainingFailures;
import io.temporal.api.enums.v1.RetryState;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/** See {@link TrialWorkflow}. Deterministic: all I/O happens in the training activity. */
public class TrialWorkflowImpl implements TrialWorkflow {

  private final Deque<TrialCommand> commands = new ArrayDeque<>();
  private final TrialState.Builder state =
      TrialState.newBuilder().setState(TrialState.State.ACTIVE);
  private boolean paused;
  private boolean closing;
  private boolean killed;
  private CancellationScope running;

  /**
   * How many of {@code state.periodic_checkpoints} a validation report has carried to the
   * experiment.
   */
  private int reportedPeriodic;

  /**
   * {@code state.target_length} and {@code state.completed_length}, kept as values to compare and
   * add.
   */
  private TrainingLength target;

  private TrainingLength completed;
  private GangTraining gang;

  @Override
  public TrialState run(TrialRequest request) {
    ExperimentConfig config = request.getConfig();
    state
        .setTrialId(request.getTrialId())
        .setWorkflowId(Workflow.getInfo().getWorkflowId())
        .setSlots(config.getResources().getSlotsPerTrial())
        .putAllHparams(request.getHparamsMap());
    gang =
        GangTraining.register(
            waiting -> {
              state.setWaiting(waiting);
              if (!waiting.isEmpty()) {
                Workflow.setCurrentDetails("trial " + state.getTrialId() + ": " + waiting);
              }
            });
    setTarget(TrainingLength.of(request.getTargetLength()));
    setCompleted(TrainingLength.zero(target.unit()));
    if (request.getStartPaused()) {
      paused = true;
      state.setState(TrialState.State.PAUSED);
    }
    if (request.hasStartFrom()) {
      state.setSourceCheckpoint(request.getStartFrom()).setLatestCheckpoint(request.getStartFrom());
    }
    ExperimentWorkflow experiment =
        Workflow.newExternalWorkflowStub(ExperimentWorkflow.class, request.getExperimentId());
    // none: validate only where the searcher asks; config validation ensured it is in the unit of
    // max_length
    Optional<TrainingLength> validationPeriod =
        config.hasMinValidationPeriod()
            ? Optional.of(TrainingLength.of(config.getMinValidationPeriod()))
            : Optional.empty();
    while (true) {
      Workflow.await(
          () ->
              !commands.isEmpty()
                  || killed
                  || (!paused && (closing || completed.isShorterThan(target))));
      drainCommands();
      if (killed) {
        return exit(experiment, TrialReport.Exit.Reason.USER_STOPPED, "killed by the user");
      }
      if (closing && !completed.isShorterThan(target)) {
        state.setState(TrialState.State.COMPLETED);
        experiment.report(
            TrialReport.newBuilder()
                .setTrialId(state.getTrialId())
                .setClosed(TrialReport.Closed.getDefaultInstance())
                .build());
        return state.build();
      }
      if (paused || !completed.isShorterThan(target)) {
        continue;
      }
      TrainingLength stepEnd =
          validationPeriod.map(p -> target.min(completed.plus(p))).orElse(target);
      TrainResult result;
      try {
        result = train(request, stepEnd);
      } catch (CanceledFailure e) {
        continue; // killed while training: handled at the top of the loop
      } catch (ActivityFailure e) {
        state.addAllPeriodicCheckpoints(TrainingFailures.writtenBeforeFailure(e));
        if (killed) {
          continue;
        }
        if (e.getRetryState() == RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED) {
          state.setRestarts(config.getMaxRestarts()); // all used up
        }
        ApplicationFailure app = TrainingFailures.applicationFailure(e);
        if (app != null && FailureTypes.INVALID_HYPERPARAMETER.equals(app.getType())) {
          return exit(experiment, TrialReport.Exit.Reason.INVALID_HP, app.getOriginalMessage());
        }
        return exit(experiment, TrialReport.Exit.Reason.ERRORED, ActivityFailures.rootMessage(e));
      }
      String metricName = config.getSearcher().getMetric();
      Double metric = result.getValidationMetricsMap().get(metricName);
      if (metric == null) {
        return exit(
            experiment,
            TrialReport.Exit.Reason.ERRORED,
            "searcher.metric '"
                + metricName
                + "' is not reported by the trial (it reports "
                + new TreeSet<>(result.getValidationMetricsMap().keySet())
                + ")");
      }
      record(result, stepEnd, metric, config.getSearcher().getSmallerIsBetter());
      experiment.report(
          TrialReport.newBuilder()
              .setTrialId(state.getTrialId())
              .setIntermediate(stepEnd.isShorterThan(target))
              .setValidation(
                  TrialReport.Validation.newBuilder()
                      .setLength(stepEnd.toProto())
                      .setMetric(metric)
                      .putAllMetrics(reportedMetrics(result))
                      .setCheckpoint(result.getCheckpoint())
                      .setBatches(result.getBatches())
                      .setRestarts(state.getRestarts())
                      .addAllRanks(result.getRanksList())
                      .addAllPeriodicCheckpoints(result.getPeriodicCheckpointsList()))
              .build());
    }
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

  private TrainResult train(TrialRequest request, TrainingLength length) {
    ExperimentConfig config = request.getConfig();
    TrainingActivities trainer =
        Workflow.newActivityStub(
            TrainingActivities.class,
            TrainingActivityOptions.forTrial(
                config.getResources().getResourcePool(),
                new TrainingActivityOptions.Restarts(config.getMaxRestarts(), state.getRestarts()),
                Duration.ofSeconds(request.getHeartbeatTimeoutSeconds()),
                "train trial " + state.getTrialId() + " to " + length));
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
            state.hasLatestCheckpoint()
                ? Optional.of(state.getLatestCheckpoint())
                : Optional.empty(),
            baseBatches);
    Promise<TrainResult>[] promise = new Promise[1];
    int slots = config.getResources().getSlotsPerTrial();
    String summary = "train trial " + state.getTrialId() + " to " + length;
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
                                    Duration.ofSeconds(request.getHeartbeatTimeoutSeconds()),
                                    config.getMaxRestarts() - state.getRestarts(),
                                    summary))
                        : Async.function(trainer::train, train));
    running.run();
    try {
      TrainResult result = promise[0].get();
      state
          .setRestarts(state.getRestarts() + Math.max(0, result.getAttempt() - 1))
          .clearRanks()
          .addAllRanks(result.getRanksList());
      return result;
    } finally {
      running = null;
    }
  }

  private void record(
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
  }

  private void setTarget(TrainingLength length) {
    target = length;
    state.setTargetLength(length.toProto());
  }

  private void setCompleted(TrainingLength length) {
    completed = length;
    state.setCompletedLength(length.toProto());
  }

  private TrialState exit(
      ExperimentWorkflow experiment, TrialReport.Exit.Reason reason, String message) {
    state.setState(TrialStates.afterExit(reason)).setError(message == null ? "" : message);
    // checkpoints of failed steps, which no validation report carried to the experiment
    List<CheckpointRef> unreported =
        state
            .getPeriodicCheckpointsList()
            .subList(reportedPeriodic, state.getPeriodicCheckpointsCount());
    experiment.report(
        TrialReport.newBuilder()
            .setTrialId(state.getTrialId())
            .setExit(
                TrialReport.Exit.newBuilder()
                    .setReason(reason)
                    .setMessage(state.getError())
                    .setRestarts(state.getRestarts())
                    .addAllWrittenCheckpoints(unreported))
            .build());
    return state.build();
  }

  private void drainCommands() {
    while (!commands.isEmpty()) {
      TrialCommand c = commands.poll();
      switch (c.getCommandCase()) {
        case TRAIN_TO_LENGTH -> setTarget(target.max(TrainingLength.of(c.getTrainToLength())));
        case CLOSE -> closing = true;
        case KILL -> killed = true;
        case PAUSE -> {
          paused = true;
          state.setState(TrialState.State.PAUSED);
        }
        case ACTIVATE -> {
          paused = false;
          state.setState(TrialState.State.ACTIVE);
        }
        case COMMAND_NOT_SET -> {}
      }
    }
  }

  @Override
  public void command(TrialCommand command) {
    commands.add(command);
    if (command.getCommandCase() == TrialCommand.CommandCase.KILL) {
      killed = true;
      if (running != null) {
        running.cancel("trial killed");
      }
    }
  }

  @Override
  public TrialState state() {
    List<RankInfo> live = gang == null ? List.of() : gang.currentRanks();
    return live.isEmpty()
        ? state.build()
        : state.build().toBuilder().clearRanks().addAllRanks(live).build();
  }
}
