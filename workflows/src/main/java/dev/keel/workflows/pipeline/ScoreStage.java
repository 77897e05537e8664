package dev.keel.workflows.pipeline;

import static dev.keel.workflows.pipeline.PipelineStubs.registry;
import static dev.keel.workflows.pipeline.PipelineStubs.tableName;

import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineStage;
import dev.keel.api.v1.Promotion;
import dev.keel.api.v1.TableRef;
import io.temporal.workflow.Workflow;

/**
 * Batch inference with the registered model (an Inference child workflow), then the promotion
 * decision against the model's champion.
 */
final class ScoreStage {

  private final PipelineRun run;

  ScoreStage(PipelineRun run) {
    this.run = run;
  }

  /**
   * Each pipeline writes its own predictions table unless told otherwise: {@code <pipeline
   * name>_predictions}.
   */
  static String defaultPredictionsTable(String pipelineName) {
    return pipelineName.replaceAll("[^A-Za-z0-9_.-]", "_") + "_predictions";
  }

  InferenceResult infer(TableRef data, ModelVersion model) {
    PipelineRequest request = run.request;
    String split = run.split();
    String predictions =
        request.getInference().getPredictionsTable().isEmpty()
            ? defaultPredictionsTable(run.name)
            : request.getInference().getPredictionsTable();
    run.stage(
        PipelineStage.infer,
        "Keel pipeline "
            + run.name
            + ": scoring the "
            + split
            + " split with model "
            + model.getName()
            + " v"
            + model.getVersion()
            + " into "
            + predictions);
    InferenceRequest.Builder infer = InferenceRequest.newBuilder();
    if (request.getInference().hasDrift()) {
      // the reference is the data the model trained on: its registered data version (reuse.model's
      // own)
      DriftConfig drift = request.getInference().getDrift();
      infer.setDrift(
          drift.hasReference()
              ? drift
              : drift.toBuilder().setReference(model.hasData() ? model.getData() : data).build());
    }
    return PipelineStubs.inference(
            run,
            "inference",
            "Score the "
                + split
                + " split of "
                + tableName(data.getUri())
                + " v"
                + data.getVersion()
                + " into "
                + tableName(predictions))
        .run(
            infer
                .setCheckpoint(model.getCheckpoint())
                .setData(data)
                .setSplit(split)
                .setPredictionsTableUri(predictions)
                .setModel(model.getConfig().getModel())
                .putAllHparams(model.getHparamsMap())
                .setModelVersion(model.getName() + "/" + model.getVersion())
                .setHeartbeatTimeoutSeconds((int) run.heartbeat().toSeconds())
                .build());
  }

  /**
   * Champion/challenger: the new version is scored against the name's champion on the same data
   * version and split (the champion re-scored without writing predictions), and becomes champion
   * only if its accuracy is higher, or if there is no champion yet. The comparison is recorded
   * either way.
   */
  ModelVersion promote(TableRef data, ModelVersion model, InferenceResult scored) {
    PipelineRequest request = run.request;
    Promotion.Policy policy = request.getPromotion().getPolicy();
    if (policy == Promotion.Policy.never) {
      run.skip(PipelineStage.promote, "promotion.policy never");
      return model;
    }
    String split = run.split();
    ModelVersionRef challenger =
        ModelVersionRef.newBuilder()
            .setName(model.getName())
            .setVersion(model.getVersion())
            .build();
    ModelVersion champion =
        registry("Find the champion of " + model.getName())
            .champion(ModelVersionRef.newBuilder().setName(model.getName()).build());
    Comparison.Builder comparison =
        Comparison.newBuilder()
            .setChallenger(challenger)
            .setMetric("accuracy")
            .setChallengerValue(scored.getAccuracy())
            .addAllChallengerClasses(scored.getClassesList())
            .setData(data)
            .setSplit(split)
            .setDecidedBy(run.id());
    boolean promote = true;
    if (champion.getVersion() > 0 && champion.getVersion() != model.getVersion()) {
      run.stage(
          PipelineStage.promote,
          "Keel pipeline "
              + run.name
              + ": scoring champion "
              + champion.getName()
              + " v"
              + champion.getVersion()
              + " on the "
              + split
              + " split of "
              + tableName(data.getUri())
              + " v"
              + data.getVersion());
      InferenceResult champ =
          PipelineStubs.inference(
                  run,
                  "champion-evaluation",
                  "Evaluate champion " + champion.getName() + " v" + champion.getVersion())
              .run(
                  InferenceRequest.newBuilder()
                      .setCheckpoint(champion.getCheckpoint())
                      .setData(data)
                      .setSplit(split)
                      .setModel(champion.getConfig().getModel())
                      .putAllHparams(champion.getHparamsMap())
                      .setModelVersion(champion.getName() + "/" + champion.getVersion())
                      .setEvaluateOnly(true)
                      .setHeartbeatTimeoutSeconds((int) run.heartbeat().toSeconds())
                      .build());
      comparison
          .setChampion(
              ModelVersionRef.newBuilder()
                  .setName(champion.getName())
                  .setVersion(champion.getVersion()))
          .setChampionValue(champ.getAccuracy())
          .addAllChampionClasses(champ.getClassesList());
      promote = policy == Promotion.Policy.always || scored.getAccuracy() > champ.getAccuracy();
    } else {
      run.stage(
          PipelineStage.promote,
          "Keel pipeline " + run.name + ": " + model.getName() + " has no champion yet");
    }
    comparison
        .setDecision(promote ? Comparison.Decision.promoted : Comparison.Decision.kept_champion)
        .setTimeMillis(Workflow.currentTimeMillis());
    run.comparison(comparison);
    return registry("Record the comparison of " + model.getName() + " v" + model.getVersion())
        .recordComparison(comparison.build());
  }
}
