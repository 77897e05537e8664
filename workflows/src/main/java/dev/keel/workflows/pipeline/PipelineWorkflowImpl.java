package dev.keel.workflows.pipeline;

import dev.keel.activities.FailureTypes;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineStage;
import dev.keel.api.v1.TableRef;
import dev.keel.search.ExperimentConfigs;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.experiment.ActivityFailures;
import dev.keel.workflows.training.GangTraining;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * See {@link PipelineWorkflow}. Deterministic: all I/O happens in the activities and child
 * workflows. Each stage's result is in the workflow's history, so a run that loses any worker, the
 * control worker included, goes on from the stage it was in. The stages live in {@link DataStage},
 * {@link TrainStage} and {@link ScoreStage}; this class runs them in order and reports the outcome.
 */
public class PipelineWorkflowImpl implements PipelineWorkflow {
  private final PipelineProgress.Builder progress =
      PipelineProgress.newBuilder()
          .setStage(PipelineStage.validate)
          .setStatus(PipelineProgress.Status.running);

  @Override
  public PipelineResult run(PipelineRequest request) {
    String name = request.getName().isBlank() ? "unnamed" : request.getName();
    GangTraining gang =
        GangTraining.register(
            waiting -> {
              if (!waiting.isEmpty()) {
                Workflow.setCurrentDetails("Keel pipeline " + name + ": training is " + waiting);
              }
            });
    Workflow.upsertTypedSearchAttributes(
        KeelSearchAttributes.PIPELINE.valueSet(name),
        KeelSearchAttributes.STAGE.valueSet(PipelineStage.validate.name()));
    validate(request);
    PipelineRun run = new PipelineRun(request, name, progress);
    DataStage data = new DataStage(run);
    TrainStage training = new TrainStage(run, gang);
    ScoreStage scoring = new ScoreStage(run);
    try {
      DataStage.Reused reused = data.reused();
      Optional<ModelVersion> warmStart = data.warmStart();
      TableRef table = data.data(data.artefacts(reused, warmStart));
      Workflow.upsertTypedSearchAttributes(
          KeelSearchAttributes.DATA_TABLE.valueSet(table.getUri()),
          KeelSearchAttributes.DATA_VERSION.valueSet(table.getVersion()));
      ModelVersion model =
          reused.model().isPresent()
              ? training.reusedModel(reused.model().get())
              : training.register(
                  training.trained(table, reused.experiment(), warmStart), warmStart);
      run.registered(model);
      InferenceResult inference = scoring.infer(table, model);
      run.inference(inference);
      Workflow.upsertTypedSearchAttributes(
          KeelSearchAttributes.TEST_ACCURACY.valueSet(inference.getAccuracy()));
      if (request.getReuse().hasModel()) {
        run.skip(PipelineStage.promote, "reuse.model");
      } else {
        model = scoring.promote(table, model, inference);
        run.promoted(model);
      }
      progress.setStatus(PipelineProgress.Status.completed);
      run.stage(
          PipelineStage.done,
          String.format(
              Locale.ROOT,
              "Keel pipeline %s: done, model %s v%d (%s), %s accuracy %.4f on %d rows",
              name,
              model.getName(),
              model.getVersion(),
              model.getStage(),
              run.split(),
              inference.getAccuracy(),
              inference.getRows()));
      return run.result();
    } catch (ActivityFailure | ChildWorkflowFailure | ApplicationFailure e) {
      progress
          .setStatus(PipelineProgress.Status.failed)
          .setError(ActivityFailures.rootMessage(e))
          .setErrorType(rootType(e))
          .setFailedStage(progress.getStage());
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet("failed"));
      Workflow.setCurrentDetails(
          "Keel pipeline "
              + name
              + " failed in stage "
              + progress.getStage()
              + ": "
              + ActivityFailures.rootMessage(e));
      throw e;
    }
  }

  @Override
  public PipelineProgress progress() {
    return progress.build();
  }

  private void validate(PipelineRequest request) {
    List<ConfigProblem> problems = ExperimentConfigs.validatePipeline(request);
    if (!problems.isEmpty()) {
      String message =
          new ConfigValidationException(ExperimentConfigs.PIPELINE, problems).getMessage();
      progress
          .setStatus(PipelineProgress.Status.failed)
          .setError(message)
          .setErrorType(FailureTypes.INVALID_PIPELINE_REQUEST)
          .setFailedStage(progress.getStage());
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet("failed"));
      Workflow.setCurrentDetails("Invalid pipeline request:\n" + message);
      throw ApplicationFailure.newNonRetryableFailure(
          message, FailureTypes.INVALID_PIPELINE_REQUEST);
    }
  }

  /**
   * The type of the innermost failure: an application failure's own type, else the failure's class.
   */
  private static String rootType(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof ApplicationFailure a ? a.getType() : c.getClass().getSimpleName();
  }
}
