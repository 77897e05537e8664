package dev.keel.workflows.pipeline;

import static dev.keel.workflows.pipeline.PipelineStubs.catalog;
import static dev.keel.workflows.pipeline.PipelineStubs.registry;
import static dev.keel.workflows.pipeline.PipelineStubs.tableName;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineReuse;
import dev.keel.api.v1.PipelineStage;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TableShape;
import dev.keel.workflows.experiment.ActivityFailures;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a pipeline builds on (a reused model or experiment, a warm-start model) and the data version
 * it pins: the ETL stage, or the reused table; refused when what it builds on trained on another
 * schema.
 */
final class DataStage {
  private final PipelineRun run;

  DataStage(PipelineRun run) {
    this.run = run;
  }

  /**
   * The model or finished experiment the request reuses, read before any stage runs, with the shape
   * of the table it trained on (empty when that table version can no longer be read: scoring then
   * finds a mismatch itself).
   */
  record Reused(
      Optional<ModelVersion> model,
      Optional<ExperimentRecord> experiment,
      String what,
      Optional<TableShape> trainedOn) {}

  Reused reused() {
    PipelineReuse reuse = run.request.getReuse();
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

  /**
   * The registered version {@code warm_start} names, resolved once before anything runs, so that a
   * model or champion that does not exist fails the pipeline at once, naming the field.
   */
  Optional<ModelVersion> warmStart() {
    PipelineRequest request = run.request;
    if (!request.hasWarmStart()) {
      return Optional.empty();
    }
    ModelSelector m = request.getWarmStart().getModel();
    boolean byVersion = m.getStage() == ModelStage.MODEL_STAGE_UNSPECIFIED;
    String what =
        byVersion
            ? m.getName() + " v" + m.getVersion()
            : "the " + m.getStage() + " of " + m.getName();
    ModelVersion version;
    try {
      version =
          byVersion
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
    run.warmStart(version);
    return Optional.of(version);
  }

  /**
   * A model or experiment the pipeline builds on, and the shape of the table version it trained on.
   */
  record TrainedOn(String what, TableShape shape) {}

  /** What the run builds on whose training table's shape is known. */
  List<TrainedOn> artefacts(Reused reused, Optional<ModelVersion> warmStart) {
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
    return artefacts;
  }

  /**
   * ETL into the target table, or the reused table pinned at a version; refused when a model or
   * experiment it builds on has another schema.
   */
  TableRef data(List<TrainedOn> artefacts) {
    PipelineRequest request = run.request;
    if (!request.getReuse().hasTable()) {
      for (TrainedOn a : artefacts) {
        TableShapeMatch.formatMismatch(a.shape(), request.getSource().getFormat())
            .ifPresent(why -> refuse(a, "source " + request.getSource().getUri(), why));
      }
    }
    Pinned pinned = ingestedOrReused();
    TableRef data = pinned.table();
    run.data(data);
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

  /** The data version the pipeline pins, with its shape when describing it read that already. */
  private record Pinned(TableRef table, Optional<TableShape> shape) {}

  private Pinned ingestedOrReused() {
    PipelineRequest request = run.request;
    if (request.getReuse().hasTable()) {
      DataSpec reuse = request.getReuse().getTable();
      run.skip(
          PipelineStage.etl,
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
    run.stage(
        PipelineStage.etl,
        "Keel pipeline "
            + run.name
            + ": ETL of "
            + request.getSource().getFormat()
            + " "
            + request.getSource().getUri()
            + " into Delta table "
            + request.getTargetTable());
    IngestResult ingest =
        PipelineStubs.etl(run)
            .ingest(
                IngestRequest.newBuilder()
                    .setSource(request.getSource())
                    .setTableUri(request.getTargetTable())
                    .build());
    run.ingest(ingest);
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
}
