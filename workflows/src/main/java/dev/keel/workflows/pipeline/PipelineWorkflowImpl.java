package dev.keel.workflows.pipeline;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.catalog.CatalogActivityOptions;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.etl.IngestActivityOptions;
import dev.keel.activities.registry.ModelRegistryActivities;
import dev.keel.activities.registry.ModelRegistryActivityOptions;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.activities.train.TrainingActivityOptions;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineReuse;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TableShape;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.search.ExperimentConfigs;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.experiment.ActivityFailures;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.inference.InferenceWorkflow;
import dev.keel.workflows.training.GangTraining;
import dev.keel.workflows.training.TrainRequests;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * See {@link PipelineWorkflow}. Deterministic: all I/O happens in the activities and child
 * workflows. Each stage's result is in the workflow's history, so a run that loses any worker, the
 * control worker included, goes on from the stage it was in.
 */
public class PipelineWorkflowImpl implements PipelineWorkflow {
  private final PipelineProgress.Builder progress =
      PipelineProgress.newBuilder().setStage("validate").setStatus("running");
  private GangTraining gang;
  private String name;

  @Override
  public PipelineResult run(PipelineRequest request) {
    name = request.getName().isBlank() ? "unnamed" : request.getName();
    gang =
        GangTraining.register(
            waiting -> {
              if (!waiting.isEmpty()) {
                Workflow.setCurrentDetails("Keel pipeline " + name + ": training is " + waiting);
              }
            });
    Workflow.upsertTypedSearchAttributes(
        KeelSearchAttributes.PIPELINE.valueSet(name),
        KeelSearchAttributes.STAGE.valueSet("validate"));
    validate(request);
    String pipelineId = Workflow.getInfo().getWorkflowId();
    PipelineResult.Builder result = PipelineResult.newBuilder().setPipelineId(pipelineId);
    try {
      Reused reused = reused(request);
      Optional<ModelVersion> warmStart = warmStart(request, result);
      List<TrainedOn> artefacts = new ArrayList<>();
      reused.trainedOn().ifPresent(shape -> artefacts.add(new TrainedOn(reused.what(), shape)));
      warmStart
          .flatMap(m -> shapeOf(m.getData()))
          .ifPresent(
              shape ->
                  artefacts.add(
                      new TrainedOn(
                          "warm_start.model "
                              + warmStart.get().getName()
                              + " v"
                              + warmStart.get().getVersion(),
                          shape)));
      TableRef data = data(request, result, artefacts);
      Workflow.upsertTypedSearchAttributes(
          KeelSearchAttributes.DATA_TABLE.valueSet(data.getUri()),
          KeelSearchAttributes.DATA_VERSION.valueSet(data.getVersion()));
      ModelVersion model =
          reused.model().isPresent()
              ? reusedModel(request, reused.model().get(), result)
              : register(request, trained(request, data, reused, warmStart, result), warmStart);
      result.setModel(model).setCheckpoint(model.getCheckpoint());
      progress.setModel(model);
      InferenceResult inference = infer(request, data, model);
      result.setInference(inference);
      progress.setInference(inference);
      Workflow.upsertTypedSearchAttributes(
          KeelSearchAttributes.TEST_ACCURACY.valueSet(inference.getAccuracy()));
      if (request.getReuse().hasModel()) {
        skip(result, "promote", "reuse.model");
      } else {
        model = promote(request, data, model, inference, result);
        result.setModel(model);
        progress.setModel(model);
      }
      progress.setStatus("completed");
      stage(
          "done",
          String.format(
              Locale.ROOT,
              "Keel pipeline %s: done, model %s v%d (%s), %s accuracy %.4f on %d rows",
              name,
              model.getName(),
              model.getVersion(),
              model.getStage(),
              split(request),
              inference.getAccuracy(),
              inference.getRows()));
      return result.build();
    } catch (ActivityFailure | ChildWorkflowFailure | ApplicationFailure e) {
      progress
          .setStatus("failed")
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

  // ---- stages ----

  /**
   * The model or finished experiment the request reuses, read before any stage runs, with the shape
   * of the table it trained on (empty when that table version can no longer be read: scoring then
   * finds a mismatch itself).
   */
  private record Reused(
      Optional<ModelVersion> model,
      Optional<ExperimentRecord> experiment,
      String what,
      Optional<TableShape> trainedOn) {}

  private Reused reused(PipelineRequest request) {
    PipelineReuse reuse = request.getReuse();
    if (reuse.hasModel()) {
      ModelVersionRef ref = reuse.getModel();
      ModelVersion model =
          registry("Describe model " + ref.getName() + " v" + ref.getVersion()).describe(ref);
      return new Reused(
          Optional.of(model),
          Optional.empty(),
          "reuse.model " + model.getName() + " v" + model.getVersion(),
          shapeOf(model.getData()));
    }
    if (!reuse.getExperimentId().isEmpty()) {
      ExperimentRecord record =
          catalog("Read experiment " + reuse.getExperimentId() + " from the catalog")
              .experimentRecord(
                  ExperimentRecordRequest.newBuilder()
                      .setExperimentId(reuse.getExperimentId())
                      .build());
      return new Reused(
          Optional.empty(),
          Optional.of(record),
          "reuse.experiment_id " + reuse.getExperimentId(),
          shapeOf(record.getResult().getState().getData()));
    }
    return new Reused(Optional.empty(), Optional.empty(), "", Optional.empty());
  }

  private static Optional<TableShape> shapeOf(TableRef table) {
    if (table.getUri().isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          catalog("Describe table " + tableName(table.getUri()) + " v" + table.getVersion())
              .describeTable(
                  DescribeTableRequest.newBuilder()
                      .setTable(table.getUri())
                      .setVersion(table.getVersion())
                      .build())
              .getShape());
    } catch (ActivityFailure gone) {
      return Optional.empty();
    }
  }

  /**
   * A model or experiment the pipeline builds on, and the shape of the table version it trained on.
   */
  private record TrainedOn(String what, TableShape shape) {}

  private static void refuse(TrainedOn artefact, String table, String why) {
    throw ApplicationFailure.newNonRetryableFailure(
        artefact.what()
            + " was trained on "
            + TableShapeMatch.describe(artefact.shape())
            + " and cannot use "
            + table
            + ": "
            + why,
        FailureTypes.INVALID_PIPELINE_REQUEST);
  }

  /**
   * ETL into the target table, or the reused table pinned at a version; refused when a model or
   * experiment it builds on has another schema.
   */
  private TableRef data(
      PipelineRequest request, PipelineResult.Builder result, List<TrainedOn> artefacts) {
    if (!request.getReuse().hasTable()) {
      for (TrainedOn a : artefacts) {
        TableShapeMatch.formatMismatch(a.shape(), request.getSource().getFormat())
            .ifPresent(why -> refuse(a, "source " + request.getSource().getUri(), why));
      }
    }
    Pinned pinned = ingestedOrReused(request, result);
    TableRef data = pinned.table();
    progress.setData(data);
    result.setData(data);
    if (!artefacts.isEmpty()) {
      Optional<TableShape> shape = pinned.shape().or(() -> shapeOf(data));
      for (TrainedOn a : artefacts) {
        shape
            .flatMap(s -> TableShapeMatch.mismatch(a.shape(), s))
            .ifPresent(
                why ->
                    refuse(a, "table " + tableName(data.getUri()) + " v" + data.getVersion(), why));
      }
    }
    return data;
  }

  /** The data version the pipeline pins, with its shape when describing it read that already. */
  private record Pinned(TableRef table, Optional<TableShape> shape) {}

  private Pinned ingestedOrReused(PipelineRequest request, PipelineResult.Builder result) {
    if (request.getReuse().hasTable()) {
      DataSpec reuse = request.getReuse().getTable();
      skip(
          result,
          "etl",
          "reuse.table "
              + reuse.getTable()
              + (reuse.hasVersion() ? " @ version " + reuse.getVersion() : ""));
      DescribeTableRequest.Builder describe =
          DescribeTableRequest.newBuilder().setTable(reuse.getTable());
      if (reuse.hasVersion()) {
        describe.setVersion(reuse.getVersion());
      }
      DescribeTableResult described =
          catalog("Describe table " + tableName(reuse.getTable())).describeTable(describe.build());
      return new Pinned(described.getTable(), Optional.of(described.getShape()));
    }
    stage(
        "etl",
        "Keel pipeline "
            + name
            + ": ETL of "
            + request.getSource().getFormat()
            + " "
            + request.getSource().getUri()
            + " into Delta table "
            + request.getTargetTable());
    IngestResult ingest =
        etl(request)
            .ingest(
                IngestRequest.newBuilder()
                    .setSource(request.getSource())
                    .setTableUri(request.getTargetTable())
                    .build());
    progress.setIngest(ingest);
    result.setIngest(ingest);
    ExperimentConfig experiment = request.getExperiment();
    return new Pinned(
        TableRef.newBuilder()
            .setUri(ingest.getTable().getUri())
            .setVersion(
                experiment.getData().hasVersion()
                    ? experiment.getData().getVersion()
                    : ingest.getTable().getVersion())
            .build(),
        Optional.empty());
  }

  /**
   * The search as a child Experiment (or a finished experiment from the catalog), then the best
   * trial trained on if asked: the checkpoint to register.
   */
  private Trained trained(
      PipelineRequest request,
      TableRef data,
      Reused reused,
      Optional<ModelVersion> warmStart,
      PipelineResult.Builder result) {
    Searched searched =
        reused.experiment().isEmpty()
            ? search(request, data, warmStart)
            : reusedExperiment(
                request.getReuse().getExperimentId(), reused.experiment().get(), result);
    String experimentId = searched.experimentId();
    ExperimentConfig config = searched.config();
    progress.setExperimentId(experimentId);
    result.setExperimentId(experimentId);
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
      skip(
          result,
          "train",
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
    stage(
        "train",
        "Keel pipeline "
            + name
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
            Workflow.getInfo().getWorkflowId(),
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
                heartbeat(request),
                finalConfig.getMaxRestarts(),
                summary)
            : trainer(finalConfig, heartbeat(request), summary).train(train);
    progress.setTrain(trained);
    result.setTrain(trained);
    return new Trained(best, trained.getCheckpoint(), finalConfig, data);
  }

  /**
   * What the search found: the experiment, its config (with defaults) and result, the data its
   * trials trained on.
   */
  private record Searched(
      String experimentId, ExperimentConfig config, ExperimentResult result, TableRef data) {}

  private Searched search(
      PipelineRequest request, TableRef data, Optional<ModelVersion> warmStart) {
    String experimentId = ExperimentWorkflow.childId(Workflow.getInfo().getWorkflowId());
    ExperimentConfig source = request.getExperiment();
    ExperimentConfig config =
        ConfigDefaults.withDefaults(
            source.toBuilder()
                .setData(
                    source.getData().toBuilder()
                        .setTable(data.getUri())
                        .setVersion(data.getVersion()))
                .build());
    // set before the child runs, so that watchers can follow its trials during the stage
    progress.setExperimentId(experimentId);
    stage(
        "search",
        "Keel pipeline "
            + name
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
    ExperimentRequest.Builder run =
        ExperimentRequest.newBuilder()
            .setConfig(config)
            .setOptions(request.getExperimentOptions())
            .setSubmittedBy(request.getSubmittedBy());
    warmStart.ifPresent(m -> run.setWarmStart(m.getCheckpoint()));
    ExperimentResult result = experiment.run(run.build());
    return new Searched(experimentId, config, result, data);
  }

  private Searched reusedExperiment(
      String experimentId, ExperimentRecord record, PipelineResult.Builder result) {
    skip(result, "search", "reuse.experiment_id " + experimentId);
    return new Searched(
        experimentId,
        ConfigDefaults.withDefaults(record.getConfig()),
        record.getResult(),
        record.getResult().getState().getData());
  }

  /** The checkpoint to register, how it was configured and the data version it last trained on. */
  private record Trained(
      BestTrial best, CheckpointRef checkpoint, ExperimentConfig config, TableRef data) {}

  /**
   * The registered version {@code warm_start} names, resolved once before anything runs, so that a
   * model or champion that does not exist fails the pipeline at once, naming the field.
   */
  private Optional<ModelVersion> warmStart(PipelineRequest request, PipelineResult.Builder result) {
    if (!request.hasWarmStart()) {
      return Optional.empty();
    }
    ModelSelector m = request.getWarmStart().getModel();
    String what =
        m.getStage().isEmpty()
            ? m.getName() + " v" + m.getVersion()
            : "the " + m.getStage() + " of " + m.getName();
    ModelVersion version;
    try {
      version =
          m.getStage().isEmpty()
              ? registry("Describe model " + what)
                  .describe(
                      ModelVersionRef.newBuilder()
                          .setName(m.getName())
                          .setVersion(m.getVersion())
                          .build())
              : registry("Find " + what)
                  .champion(ModelVersionRef.newBuilder().setName(m.getName()).build());
    } catch (ActivityFailure e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "warm_start.model: " + ActivityFailures.rootMessage(e),
          FailureTypes.INVALID_PIPELINE_REQUEST);
    }
    if (version.getVersion() == 0) {
      throw ApplicationFailure.newNonRetryableFailure(
          "warm_start.model: model '"
              + m.getName()
              + "' has no "
              + m.getStage()
              + " (promote a version, or name one with version)",
          FailureTypes.INVALID_PIPELINE_REQUEST);
    }
    result.setWarmStart(version);
    progress.setWarmStart(version);
    return Optional.of(version);
  }

  private ModelVersion register(
      PipelineRequest request, Trained trained, Optional<ModelVersion> warmStart) {
    String modelName = modelName(request);
    stage(
        "register",
        "Keel pipeline "
            + name
            + ": registering checkpoint "
            + trained.checkpoint().getUuid()
            + " as model "
            + modelName);
    RegisterModelRequest.Builder register =
        RegisterModelRequest.newBuilder().setSubmittedBy(request.getSubmittedBy());
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
                .setRegisteredBy(Workflow.getInfo().getWorkflowId())
                .build());
  }

  private ModelVersion reusedModel(
      PipelineRequest request, ModelVersion model, PipelineResult.Builder result) {
    var ref = request.getReuse().getModel();
    skip(result, "search", "reuse.model " + ref.getName() + " v" + ref.getVersion());
    skip(result, "train", "reuse.model");
    skip(result, "register", "reuse.model");
    return model;
  }

  private InferenceResult infer(PipelineRequest request, TableRef data, ModelVersion model) {
    String split = split(request);
    String predictions =
        request.getInference().getPredictionsTable().isEmpty()
            ? defaultPredictionsTable(name)
            : request.getInference().getPredictionsTable();
    stage(
        "infer",
        "Keel pipeline "
            + name
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
    return inferrer(
            Workflow.getInfo().getWorkflowId(),
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
                .setHeartbeatTimeoutSeconds((int) heartbeat(request).toSeconds())
                .build());
  }

  /**
   * Champion/challenger: the new version is scored against the name's champion on the same data
   * version and split (the champion re-scored without writing predictions), and becomes champion
   * only if its accuracy is higher, or if there is no champion yet. The comparison is recorded
   * either way.
   */
  private ModelVersion promote(
      PipelineRequest request,
      TableRef data,
      ModelVersion model,
      InferenceResult scored,
      PipelineResult.Builder result) {
    String policy =
        request.getPromotion().getPolicy().isEmpty()
            ? CHAMPION_CHALLENGER
            : request.getPromotion().getPolicy();
    if (NEVER.equals(policy)) {
      skip(result, "promote", "promotion.policy never");
      return model;
    }
    String pipelineId = Workflow.getInfo().getWorkflowId();
    String split = split(request);
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
            .setDecidedBy(pipelineId);
    boolean promote = true;
    if (champion.getVersion() > 0 && champion.getVersion() != model.getVersion()) {
      stage(
          "promote",
          "Keel pipeline "
              + name
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
          Workflow.newChildWorkflowStub(
                  InferenceWorkflow.class,
                  ChildWorkflowOptions.newBuilder()
                      .setWorkflowId(pipelineId + "/champion-evaluation")
                      .setTaskQueue(TaskQueues.CONTROL)
                      .setStaticSummary(
                          "Evaluate champion " + champion.getName() + " v" + champion.getVersion())
                      .build())
              .run(
                  InferenceRequest.newBuilder()
                      .setCheckpoint(champion.getCheckpoint())
                      .setData(data)
                      .setSplit(split)
                      .setModel(champion.getConfig().getModel())
                      .putAllHparams(champion.getHparamsMap())
                      .setModelVersion(champion.getName() + "/" + champion.getVersion())
                      .setEvaluateOnly(true)
                      .setHeartbeatTimeoutSeconds((int) heartbeat(request).toSeconds())
                      .build());
      comparison
          .setChampion(
              ModelVersionRef.newBuilder()
                  .setName(champion.getName())
                  .setVersion(champion.getVersion()))
          .setChampionValue(champ.getAccuracy())
          .addAllChampionClasses(champ.getClassesList());
      promote = ALWAYS.equals(policy) || scored.getAccuracy() > champ.getAccuracy();
    } else {
      stage("promote", "Keel pipeline " + name + ": " + model.getName() + " has no champion yet");
    }
    comparison
        .setDecision(promote ? "promoted" : "kept_champion")
        .setTimeMillis(Workflow.currentTimeMillis());
    result.setComparison(comparison);
    progress.setComparison(comparison);
    return registry("Record the comparison of " + model.getName() + " v" + model.getVersion())
        .recordComparison(comparison.build());
  }

  static final String CHAMPION_CHALLENGER = "champion_challenger";
  static final String ALWAYS = "always";
  static final String NEVER = "never";

  // ---- helpers ----

  /**
   * Each pipeline writes its own predictions table unless told otherwise: {@code <pipeline
   * name>_predictions}.
   */
  static String defaultPredictionsTable(String pipelineName) {
    return pipelineName.replaceAll("[^A-Za-z0-9_.-]", "_") + "_predictions";
  }

  private String modelName(PipelineRequest request) {
    return request.getModelName().isEmpty()
        ? name.replaceAll("[^A-Za-z0-9_.-]", "_")
        : request.getModelName();
  }

  private static String split(PipelineRequest request) {
    return request.getInference().getSplit().isEmpty() ? "test" : request.getInference().getSplit();
  }

  private void validate(PipelineRequest request) {
    List<ConfigProblem> problems = ExperimentConfigs.validatePipeline(request);
    if (!problems.isEmpty()) {
      String message =
          new ConfigValidationException(ExperimentConfigs.PIPELINE, problems).getMessage();
      progress
          .setStatus("failed")
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
   * The stage in the progress query, the KeelStage search attribute and the UI's current details.
   */
  private void stage(String stage, String details) {
    progress.setStage(stage);
    Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet(stage));
    Workflow.setCurrentDetails(details);
  }

  private void skip(PipelineResult.Builder result, String stage, String why) {
    String line = stage + ": " + why;
    result.addSkipped(line);
    progress.addSkipped(line);
  }

  /** The last path segment of a table URI, for short activity summaries. */
  static String tableName(String uri) {
    String u = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    return u.substring(u.lastIndexOf('/') + 1);
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

  private static IngestActivities etl(PipelineRequest request) {
    return Workflow.newActivityStub(
        IngestActivities.class,
        IngestActivityOptions.forIngest(
            "Ingest "
                + request.getSource().getFormat()
                + " into Delta table "
                + tableName(request.getTargetTable()),
            heartbeat(request)));
  }

  /** How long any of the pipeline's workers may stay silent before its attempt counts as dead. */
  private static Duration heartbeat(PipelineRequest request) {
    int seconds = request.getExperimentOptions().getHeartbeatTimeoutSeconds();
    return seconds > 0 ? Duration.ofSeconds(seconds) : ConfigDefaults.HEARTBEAT_TIMEOUT;
  }

  private static CatalogActivities catalog(String summary) {
    return Workflow.newActivityStub(
        CatalogActivities.class, CatalogActivityOptions.forCatalog(summary));
  }

  private static ModelRegistryActivities registry(String summary) {
    ActivityOptions options = ModelRegistryActivityOptions.forRegistry(summary);
    return Workflow.newActivityStub(ModelRegistryActivities.class, options);
  }

  private static TrainingActivities trainer(
      ExperimentConfig experiment, Duration heartbeat, String summary) {
    return Workflow.newActivityStub(
        TrainingActivities.class,
        TrainingActivityOptions.forTrial(
            experiment.getResources().getResourcePool(),
            TrainingActivityOptions.Restarts.unused(experiment.getMaxRestarts()),
            heartbeat,
            summary));
  }

  /** The infer stage is an Inference child workflow (partitions scored in parallel, one commit). */
  private static InferenceWorkflow inferrer(String pipelineId, String summary) {
    return Workflow.newChildWorkflowStub(
        InferenceWorkflow.class,
        ChildWorkflowOptions.newBuilder()
            .setWorkflowId(pipelineId + "/inference")
            .setTaskQueue(TaskQueues.CONTROL)
            .setStaticSummary(summary)
            .build());
  }
}
