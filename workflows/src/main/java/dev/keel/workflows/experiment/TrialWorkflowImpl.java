package dev.keel.workflows.experiment;

import dev.keel.activities.FailureTypes;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.training.GangTraining;
import dev.keel.workflows.training.TrainingFailures;
import io.temporal.api.enums.v1.RetryState;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Optional;

/**
 * See {@link TrialWorkflow}. The loop: apply the experiment's commands ({@link TrialInbox}), train
 * a step up to the next validation ({@link TrialStep}), note it ({@link TrialProgress}) and report
 * it to the experiment, until the trial is closed, killed or fails. Deterministic: all I/O happens
 * in the training activity.
 */
public class TrialWorkflowImpl implements TrialWorkflow {
  private final TrialInbox inbox = new TrialInbox();
  private final TrialProgress progress = new TrialProgress();

  /** Null until the trial runs. */
  private TrialStep step;

  @Override
  public TrialState run(TrialRequest request) {
    ExperimentConfig config = request.getConfig();
    progress.begin(request);
    GangTraining gang =
        GangTraining.register(
            waiting -> {
              progress.setWaiting(waiting);
              if (!waiting.isEmpty()) {
                Workflow.setCurrentDetails(TrialMessages.waiting(progress.trialId(), waiting));
              }
            });
    step = new TrialStep(request, gang);
    if (request.getStartPaused()) {
      inbox.startPaused(progress);
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
              !inbox.isEmpty()
                  || inbox.killed()
                  || (!inbox.paused() && (inbox.closing() || progress.hasLengthToGo())));
      inbox.apply(progress);
      if (inbox.killed()) {
        return exit(experiment, TrialReport.Exit.Reason.USER_STOPPED, TrialMessages.KILLED);
      }
      if (inbox.closing() && !progress.hasLengthToGo()) {
        experiment.report(progress.completed());
        return progress.snapshot();
      }
      if (inbox.paused() || !progress.hasLengthToGo()) {
        continue;
      }
      TrainingLength stepEnd = progress.nextStepEnd(validationPeriod);
      TrainResult result;
      try {
        result = step.train(progress, stepEnd);
      } catch (CanceledFailure e) {
        continue; // killed while training: handled at the top of the loop
      } catch (ActivityFailure e) {
        progress.stepFailed(TrainingFailures.writtenBeforeFailure(e));
        if (inbox.killed()) {
          continue;
        }
        if (e.getRetryState() == RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED) {
          progress.restartsUsedUp(config.getMaxRestarts());
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
            TrialMessages.metricNotReported(metricName, result.getValidationMetricsMap().keySet()));
      }
      experiment.report(
          progress.validated(result, stepEnd, metric, config.getSearcher().getSmallerIsBetter()));
    }
  }

  private TrialState exit(
      ExperimentWorkflow experiment, TrialReport.Exit.Reason reason, String message) {
    experiment.report(progress.exited(reason, message));
    return progress.snapshot();
  }

  @Override
  public void command(TrialCommand command) {
    if (inbox.add(command) && step != null) {
      step.cancel();
    }
  }

  @Override
  public TrialState state() {
    List<RankInfo> live = step == null ? List.of() : step.liveRanks();
    return progress.snapshot(live);
  }
}
