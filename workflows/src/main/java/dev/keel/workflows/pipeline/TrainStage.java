package dev.keel.workflows.pipeline;

import static dev.keel.workflows.pipeline.PipelineStubs.registry;
import static dev.keel.workflows.pipeline.PipelineStubs.tableName;

import dev.keel.activities.FailureTypes;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineStage;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.training.GangTraining;
import dev.keel.workflows.training.TrainRequests;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.util.Optional;

/**
 * The search (a child Experiment, or a finished one from the catalog), the best trial trained on
 * when {@code final_training} asks, and the registration of the checkpoint that gives.
 */
final class TrainStage {
  private final PipelineRun run;
  private final GangTraining gang;

  TrainStage(PipelineRun run, GangTraining gang) {
    this.run = run;
    this.gang = gang;
  }

  /** The checkpoint to register, how it was configured and the data version it last trained on. */
  record Trained(
      BestTrial best, CheckpointRef checkpoint, ExperimentConfig config, TableRef data) {}

  /**
   * The search as a child Experiment (or a finished experiment from the catalog), then the best
   * trial trained on if asked: the checkpoint to register.
   */
  Trained trained(
      TableRef data, Optional<ExperimentRecord> reused, Optional<ModelVersion> warmStart) {
    PipelineRequest request = run.request;
    Searched searched =
        reused.isEmpty()
            ? search(data, warmStart)
            : reusedExperiment(request.getReuse().getExperimentId(), reused.get());
    String experimentId = searched.experimentId();
    ExperimentConfig config = searched.config();
    run.experimentId(experimentId);
    LengthUnit unit = TrainingLength.unitOf(config.getSearcher().getMaxLength()).orElseThrow();
    BestTrial best = BestTrial.of(experimentId, searched.result(), unit);

    Optional<TrainingLength> target =
        request.hasFinalTraining()
            ? Optional.of(TrainingLength.of(request.getFinalTraining().getMaxLength()))
            : Optional.empty();
    if (target.isPresent() && target.get().unit() != unit) {
      throw ApplicationFailure.newNonRetryableFailure(
          "final_training.max_length is in "
              + target.get().unit().label()
              + " but experiment "
              + experimentId
              + " measured its trials in "
              + unit.label(),
          FailureTypes.INVALID_PIPELINE_REQUEST);
    }
    if (target.isEmpty() || !best.length().isShorterThan(target.get())) {
      run.skip(
          PipelineStage.train,
          target.isEmpty()
              ? "no final_training"
              : "the best checkpoint already has "
                  + best.length()
                  + " (final_training.max_length "
                  + target.get()
                  + ")");
      return new Trained(best, best.checkpoint(), config, searched.data());
    }
    int slots =
        request.getFinalTraining().hasSlotsPerTrial()
            ? request.getFinalTraining().getSlotsPerTrial()
            : config.getResources().getSlotsPerTrial();
    ExperimentConfig finalConfig =
        config.toBuilder()
            .setResources(config.getResources().toBuilder().setSlotsPerTrial(slots))
            .setData(
                config.getData().toBuilder().setTable(data.getUri()).setVersion(data.getVersion()))
            .build();
    String model =
        config.getModel().getName().isEmpty()
            ? config.getModel().getClass_()
            : config.getModel().getName();
    run.stage(
        PipelineStage.train,
        "Keel pipeline "
            + run.name
            + ": training trial "
            + best.trialId()
            + " of "
            + experimentId
            + " ("
            + model
            + ") on to "
            + target.get()
            + " on "
            + slots
            + " slot(s), from checkpoint "
            + best.checkpoint().getUuid());
    String summary = "Train " + model + " on to " + target.get() + " from trial " + best.trialId();
    // The trial's own seed, so the data order goes on as it would have had the trial trained
    // longer.
    TrainRequest train =
        TrainRequests.of(
            run.id(),
            1,
            finalConfig,
            data,
            best.hparams(),
            finalConfig.getReproducibility().getSeed() + best.trialId(),
            target.get(),
            Optional.of(best.checkpoint()),
            0);
    TrainResult trained =
        slots > 1
            ? gang.train(
                train,
                slots,
                finalConfig.getResources().getResourcePool(),
                run.heartbeat(),
                finalConfig.getMaxRestarts(),
                summary)
            : PipelineStubs.trainer(finalConfig, run.heartbeat(), summary).train(train);
    run.train(trained);
    return new Trained(best, trained.getCheckpoint(), finalConfig, data);
  }

  /**
   * What the search found: the experiment, its config (with defaults) and result, the data its
   * trials trained on.
   */
  private record Searched(
      String experimentId, ExperimentConfig config, ExperimentResult result, TableRef data) {}

  private Searched search(TableRef data, Optional<ModelVersion> warmStart) {
    String experimentId = ExperimentWorkflow.childId(run.id());
    ExperimentConfig source = run.request.getExperiment();
    ExperimentConfig config =
        ConfigDefaults.withDefaults(
            source.toBuilder()
                .setData(
                    source.getData().toBuilder()
                        .setTable(data.getUri())
                        .setVersion(data.getVersion()))
                .build());
    run.searching(experimentId);
    run.stage(
        PipelineStage.search,
        "Keel pipeline "
            + run.name
            + ": experiment "
            + experimentId
            + " ("
            + config.getSearcher().getName()
            + " searcher) on "
            + tableName(data.getUri())
            + " v"
            + data.getVersion());
    ExperimentWorkflow experiment =
        Workflow.newChildWorkflowStub(
            ExperimentWorkflow.class,
            ChildWorkflowOptions.newBuilder().setWorkflowId(experimentId).build());
    ExperimentRequest.Builder request =
        ExperimentRequest.newBuilder()
            .setConfig(config)
            .setOptions(run.request.getExperimentOptions())
            .setSubmittedBy(run.request.getSubmittedBy());
    warmStart.ifPresent(m -> request.setWarmStart(m.getCheckpoint()));
    ExperimentResult result = experiment.run(request.build());
    return new Searched(experimentId, config, result, data);
  }

  private Searched reusedExperiment(String experimentId, ExperimentRecord record) {
    run.skip(PipelineStage.search, "reuse.experiment_id " + experimentId);
    return new Searched(
        experimentId,
        ConfigDefaults.withDefaults(record.getConfig()),
        record.getResult(),
        record.getResult().getState().getData());
  }

  ModelVersion register(Trained trained, Optional<ModelVersion> warmStart) {
    String modelName = modelName();
    run.stage(
        PipelineStage.register,
        "Keel pipeline "
            + run.name
            + ": registering checkpoint "
            + trained.checkpoint().getUuid()
            + " as model "
            + modelName);
    RegisterModelRequest.Builder register =
        RegisterModelRequest.newBuilder().setSubmittedBy(run.request.getSubmittedBy());
    warmStart.ifPresent(
        m ->
            register.setWarmStartedFrom(
                ModelVersionRef.newBuilder().setName(m.getName()).setVersion(m.getVersion())));
    return registry("Register model " + modelName)
        .register(
            register
                .setName(modelName)
                .setCheckpoint(trained.checkpoint())
                .setConfig(trained.config())
                .putAllHparams(trained.best().hparams())
                .setData(trained.data())
                .setExperimentId(trained.best().experimentId())
                .setTrialId(TrainRequests.trialId(trained.best().trialId()))
                .setRegisteredBy(run.id())
                .build());
  }

  /** The reused model in place of search, train and register. */
  ModelVersion reusedModel(ModelVersion model) {
    ModelVersionRef ref = run.request.getReuse().getModel();
    run.skip(PipelineStage.search, "reuse.model " + ref.getName() + " v" + ref.getVersion());
    run.skip(PipelineStage.train, "reuse.model");
    run.skip(PipelineStage.register, "reuse.model");
    return model;
  }

  private String modelName() {
    return run.request.getModelName().isEmpty()
        ? run.name.replaceAll("[^A-Za-z0-9_.-]", "_")
        : run.request.getModelName();
  }
}
