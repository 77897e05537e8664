package dev.keel.workflows.pipeline;

import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineStage;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainResult;
import dev.keel.workflows.KeelSearchAttributes;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * One pipeline run as its stages see it: the request, the pipeline's name, and what the run
 * reports, where each outcome goes to the progress query and the result alike.
 */
final class PipelineRun {
  final PipelineRequest request;
  final String name;
  private final PipelineProgress.Builder progress;
  private final PipelineResult.Builder result;

  PipelineRun(PipelineRequest request, String name, PipelineProgress.Builder progress) {
    this.request = request;
    this.name = name;
    this.progress = progress;
    this.result = PipelineResult.newBuilder().setPipelineId(id());
  }

  /** The pipeline's workflow id. */
  String id() {
    return Workflow.getInfo().getWorkflowId();
  }

  /**
   * The stage in the progress query, the KeelStage search attribute and the UI's current details.
   */
  void stage(PipelineStage stage, String details) {
    progress.setStage(stage);
    Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet(stage.name()));
    Workflow.setCurrentDetails(details);
  }

  void skip(PipelineStage stage, String why) {
    String line = stage.name() + ": " + why;
    result.addSkipped(line);
    progress.addSkipped(line);
  }

  /** How long any of the pipeline's workers may stay silent before its attempt counts as dead. */
  Duration heartbeat() {
    int seconds = request.getExperimentOptions().getHeartbeatTimeoutSeconds();
    return seconds > 0 ? Duration.ofSeconds(seconds) : ConfigDefaults.HEARTBEAT_TIMEOUT;
  }

  /** The split the infer stage scores. */
  String split() {
    return request.getInference().getSplit().isEmpty()
        ? Splits.TEST
        : request.getInference().getSplit();
  }

  void data(TableRef data) {
    progress.setData(data);
    result.setData(data);
  }

  void ingest(IngestResult ingest) {
    progress.setIngest(ingest);
    result.setIngest(ingest);
  }

  void warmStart(ModelVersion version) {
    result.setWarmStart(version);
    progress.setWarmStart(version);
  }

  void experimentId(String experimentId) {
    progress.setExperimentId(experimentId);
    result.setExperimentId(experimentId);
  }

  /** Before the search child runs, so that watchers can follow its trials during the stage. */
  void searching(String experimentId) {
    progress.setExperimentId(experimentId);
  }

  void train(TrainResult trained) {
    progress.setTrain(trained);
    result.setTrain(trained);
  }

  /** The registered (or reused) version, whose checkpoint the result names. */
  void registered(ModelVersion model) {
    result.setModel(model).setCheckpoint(model.getCheckpoint());
    progress.setModel(model);
  }

  /** The version after promotion: its stage may have changed. */
  void promoted(ModelVersion model) {
    result.setModel(model);
    progress.setModel(model);
  }

  void inference(InferenceResult inference) {
    result.setInference(inference);
    progress.setInference(inference);
  }

  void comparison(Comparison.Builder comparison) {
    result.setComparison(comparison);
    progress.setComparison(comparison);
  }

  PipelineResult result() {
    return result.build();
  }
}
