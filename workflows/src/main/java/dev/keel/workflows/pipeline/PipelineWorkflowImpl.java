package dev.keel.workflows.pipeline;

import com.google.protobuf.Value;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.PipelineRequestValidator;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** See {@link PipelineWorkflow}. Deterministic: all I/O happens in the activities. */
public class PipelineWorkflowImpl implements PipelineWorkflow {
  static final String INVALID_REQUEST = "InvalidPipelineRequest";

  private final PipelineProgress.Builder progress = PipelineProgress.newBuilder().setStage("validate").setStatus("running");

  @Override
  public PipelineResult run(PipelineRequest request) {
    validate(request);
    ExperimentConfig experiment = request.getExperiment();
    try {
      progress.setStage("etl");
      IngestResult ingest = etl().ingest(IngestRequest.newBuilder()
          .setSource(request.getSource()).setTableUri(request.getTargetTable()).build());
      progress.setIngest(ingest);

      progress.setStage("train");
      TableRef data = TableRef.newBuilder().setUri(ingest.getTable().getUri())
          .setVersion(experiment.getData().hasVersion() ? experiment.getData().getVersion() : ingest.getTable().getVersion())
          .build();
      Map<String, Value> hparams = PipelinePlan.constHparams(experiment);
      String pipelineId = Workflow.getInfo().getWorkflowId();
      TrainResult train = trainer(experiment).train(TrainRequest.newBuilder()
          .setExperimentId(pipelineId)
          .setTrialId("trial-1")
          .setData(data)
          .setValidationFraction(PipelinePlan.validationFraction(experiment))
          .setModel(experiment.getModel())
          .putAllHparams(hparams)
          .setSeed(experiment.getReproducibility().getSeed())
          .setTargetLength(experiment.getSearcher().getMaxLength())
          .setCheckpointEveryBatches(checkpointEvery(experiment))
          .setCheckpointRoot(experiment.getCheckpointStorage().getStoragePath())
          .build());
      progress.setTrain(train);

      progress.setStage("infer");
      String split = request.getInference().getSplit().isEmpty() ? "test" : request.getInference().getSplit();
      String predictions = request.getInference().getPredictionsTable().isEmpty()
          ? request.getTargetTable() + "_predictions" : request.getInference().getPredictionsTable();
      InferenceResult inference = inferrer().score(InferenceRequest.newBuilder()
          .setCheckpoint(train.getCheckpoint())
          .setData(data)
          .setSplit(split)
          .setPredictionsTableUri(predictions)
          .setModel(experiment.getModel())
          .putAllHparams(hparams)
          .build());
      progress.setInference(inference).setStage("done").setStatus("completed");
      return PipelineResult.newBuilder().setPipelineId(pipelineId)
          .setIngest(ingest).setTrain(train).setInference(inference).build();
    } catch (ActivityFailure e) {
      progress.setStatus("failed").setError(rootMessage(e));
      throw e;
    }
  }

  @Override
  public PipelineProgress progress() {
    return progress.build();
  }

  private void validate(PipelineRequest request) {
    List<ConfigProblem> problems = new ArrayList<>(PipelineRequestValidator.validate(request));
    String searcher = request.getExperiment().getSearcher().getName();
    if (!searcher.isEmpty() && !"single".equals(searcher)) {
      problems.add(new ConfigProblem("experiment.searcher.name",
          "a pipeline trains one trial: use the single searcher (got " + searcher + "); run searches as experiments"));
    }
    if (!problems.isEmpty()) {
      String message = new ConfigValidationException("pipeline request", problems).getMessage();
      progress.setStatus("failed").setError(message);
      throw ApplicationFailure.newNonRetryableFailure(message, INVALID_REQUEST);
    }
  }

  private static long checkpointEvery(ExperimentConfig experiment) {
    return experiment.getMinCheckpointPeriod().hasBatches()
        ? experiment.getMinCheckpointPeriod().getBatches() : PipelinePlan.DEFAULT_CHECKPOINT_EVERY;
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c.getMessage();
  }

  private static IngestActivities etl() {
    return Workflow.newActivityStub(IngestActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.ETL)
        .setStartToCloseTimeout(Duration.ofMinutes(30))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
        .build());
  }

  private static TrainingActivities trainer(ExperimentConfig experiment) {
    int restarts = experiment.hasMaxRestarts() ? experiment.getMaxRestarts() : 5;
    return Workflow.newActivityStub(TrainingActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.train(experiment.getResources().getResourcePool()))
        // A dead worker is detected by its missing heartbeats, not by this generous bound.
        .setStartToCloseTimeout(Duration.ofHours(24))
        .setHeartbeatTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder()
            .setMaximumAttempts(restarts + 1)
            .setDoNotRetry("InvalidHyperparameter")
            .build())
        .build());
  }

  private static InferenceActivities inferrer() {
    return Workflow.newActivityStub(InferenceActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.INFER)
        .setStartToCloseTimeout(Duration.ofHours(2))
        .setHeartbeatTimeout(Duration.ofSeconds(60))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
        .build());
  }
}
