package dev.keel.workflows.pipeline;

import com.google.protobuf.Value;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.etl.IngestActivityOptions;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.activities.train.TrainingActivityOptions;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.length.TrainingLength;
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
import dev.keel.search.ExperimentConfigs;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.inference.InferenceWorkflow;
import dev.keel.workflows.training.GangTraining;
import dev.keel.workflows.training.TrainRequests;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** See {@link PipelineWorkflow}. Deterministic: all I/O happens in the activities. */
public class PipelineWorkflowImpl implements PipelineWorkflow {
  private final PipelineProgress.Builder progress = PipelineProgress.newBuilder().setStage("validate").setStatus("running");
  private GangTraining gang;

  @Override
  public PipelineResult run(PipelineRequest request) {
    String name = request.getName().isBlank() ? "unnamed" : request.getName();
    gang = GangTraining.register(waiting -> {
      if (!waiting.isEmpty()) {
        Workflow.setCurrentDetails("Keel pipeline " + name + ": training is " + waiting);
      }
    });
    Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.PIPELINE.valueSet(name),
        KeelSearchAttributes.STAGE.valueSet("validate"));
    validate(request);
    ExperimentConfig experiment = ConfigDefaults.withDefaults(request.getExperiment());
    try {
      stage("etl", "Keel pipeline " + name + ": ETL of " + request.getSource().getFormat() + " "
          + request.getSource().getUri() + " into Delta table " + request.getTargetTable());
      IngestResult ingest = etl(request).ingest(IngestRequest.newBuilder()
          .setSource(request.getSource()).setTableUri(request.getTargetTable()).build());
      progress.setIngest(ingest);

      TableRef data = TableRef.newBuilder().setUri(ingest.getTable().getUri())
          .setVersion(experiment.getData().hasVersion() ? experiment.getData().getVersion() : ingest.getTable().getVersion())
          .build();
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.DATA_TABLE.valueSet(data.getUri()),
          KeelSearchAttributes.DATA_VERSION.valueSet(data.getVersion()));
      Map<String, Value> hparams = PipelinePlan.constHparams(experiment);
      String pipelineId = Workflow.getInfo().getWorkflowId();
      String model = experiment.getModel().getName().isEmpty() ? experiment.getModel().getClass_() : experiment.getModel().getName();
      TrainingLength length = TrainingLength.of(experiment.getSearcher().getMaxLength());
      stage("train", "Keel pipeline " + name + ": training " + model + " for " + length + " on "
          + data.getUri() + " @ version " + data.getVersion());
      String summary = "Train " + model + " for " + length + " on " + tableName(data.getUri()) + " v" + data.getVersion();
      TrainRequest trainRequest = TrainRequests.of(pipelineId, 1, experiment, data,
          hparams, experiment.getReproducibility().getSeed(), length, Optional.empty(), 0);
      int slots = experiment.getResources().getSlotsPerTrial();
      TrainResult train = slots > 1
          ? gang.train(trainRequest, slots, experiment.getResources().getResourcePool(), ConfigDefaults.HEARTBEAT_TIMEOUT,
              experiment.getMaxRestarts(), summary)
          : trainer(experiment, summary).train(trainRequest);
      progress.setTrain(train);

      String split = request.getInference().getSplit().isEmpty() ? "test" : request.getInference().getSplit();
      String predictions = request.getInference().getPredictionsTable().isEmpty()
          ? request.getTargetTable() + "_predictions" : request.getInference().getPredictionsTable();
      stage("infer", "Keel pipeline " + name + ": scoring the " + split + " split with checkpoint "
          + train.getCheckpoint().getUuid() + " into " + predictions);
      InferenceResult inference = inferrer(pipelineId, "Score the " + split + " split of " + tableName(data.getUri())
          + " v" + data.getVersion() + " into " + tableName(predictions)).run(InferenceRequest.newBuilder()
          .setCheckpoint(train.getCheckpoint())
          .setData(data)
          .setSplit(split)
          .setPredictionsTableUri(predictions)
          .setModel(experiment.getModel())
          .putAllHparams(hparams)
          .build());
      progress.setInference(inference).setStatus("completed");
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.TEST_ACCURACY.valueSet(inference.getAccuracy()));
      stage("done", String.format(Locale.ROOT, "Keel pipeline %s: done, %s accuracy %.4f on %d rows",
          name, split, inference.getAccuracy(), inference.getRows()));
      return PipelineResult.newBuilder().setPipelineId(pipelineId)
          .setIngest(ingest).setTrain(train).setInference(inference).build();
    } catch (ActivityFailure | ChildWorkflowFailure e) {
      progress.setStatus("failed").setError(rootMessage(e));
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet("failed"));
      Workflow.setCurrentDetails("Keel pipeline " + name + " failed in stage " + progress.getStage() + ": " + rootMessage(e));
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
      String message = new ConfigValidationException(ExperimentConfigs.PIPELINE, problems).getMessage();
      progress.setStatus("failed").setError(message);
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet("failed"));
      Workflow.setCurrentDetails("Invalid pipeline request:\n" + message);
      throw ApplicationFailure.newNonRetryableFailure(message, FailureTypes.INVALID_PIPELINE_REQUEST);
    }
  }

  /** The stage in the progress query, the KeelStage search attribute and the UI's current details. */
  private void stage(String stage, String details) {
    progress.setStage(stage);
    Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet(stage));
    Workflow.setCurrentDetails(details);
  }

  /** The last path segment of a table URI, for short activity summaries. */
  static String tableName(String uri) {
    String u = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    return u.substring(u.lastIndexOf('/') + 1);
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c.getMessage();
  }

  private static IngestActivities etl(PipelineRequest request) {
    return Workflow.newActivityStub(IngestActivities.class, IngestActivityOptions.forIngest(
        "Ingest " + request.getSource().getFormat() + " into Delta table " + tableName(request.getTargetTable())));
  }

  private static TrainingActivities trainer(ExperimentConfig experiment, String summary) {
    return Workflow.newActivityStub(TrainingActivities.class, TrainingActivityOptions.forTrial(
        experiment.getResources().getResourcePool(), experiment.getMaxRestarts(), 0, ConfigDefaults.HEARTBEAT_TIMEOUT,
        summary));
  }

  /** The infer stage is an Inference child workflow (partitions scored in parallel, one commit). */
  private static InferenceWorkflow inferrer(String pipelineId, String summary) {
    return Workflow.newChildWorkflowStub(InferenceWorkflow.class, ChildWorkflowOptions.newBuilder()
        .setWorkflowId(pipelineId + "/inference").setTaskQueue(TaskQueues.CONTROL).setStaticSummary(summary).build());
  }
}
