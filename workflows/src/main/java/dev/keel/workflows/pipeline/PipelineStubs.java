package dev.keel.workflows.pipeline;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.catalog.CatalogActivityOptions;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.etl.IngestActivityOptions;
import dev.keel.activities.registry.ModelRegistryActivities;
import dev.keel.activities.registry.ModelRegistryActivityOptions;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.activities.train.TrainingActivityOptions;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.workflows.inference.InferenceWorkflow;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** The activity and child-workflow stubs the pipeline's stages call, each with its summary. */
final class PipelineStubs {
  private PipelineStubs() {}

  static IngestActivities etl(PipelineRun run) {
    return Workflow.newActivityStub(
        IngestActivities.class,
        IngestActivityOptions.forIngest(
            "Ingest "
                + run.request.getSource().getFormat()
                + " into Delta table "
                + tableName(run.request.getTargetTable()),
            run.heartbeat()));
  }

  static CatalogActivities catalog(String summary) {
    return Workflow.newActivityStub(
        CatalogActivities.class, CatalogActivityOptions.forCatalog(summary));
  }

  static ModelRegistryActivities registry(String summary) {
    return Workflow.newActivityStub(
        ModelRegistryActivities.class, ModelRegistryActivityOptions.forRegistry(summary));
  }

  static TrainingActivities trainer(
      ExperimentConfig experiment, Duration heartbeat, String summary) {
    return Workflow.newActivityStub(
        TrainingActivities.class,
        TrainingActivityOptions.forTrial(
            experiment.getResources().getResourcePool(),
            TrainingActivityOptions.Restarts.unused(experiment.getMaxRestarts()),
            heartbeat,
            summary));
  }

  /**
   * An Inference child workflow (partitions scored in parallel, one commit) with id {@code
   * <pipeline id>/<suffix>}.
   */
  static InferenceWorkflow inference(PipelineRun run, String suffix, String summary) {
    return Workflow.newChildWorkflowStub(
        InferenceWorkflow.class,
        ChildWorkflowOptions.newBuilder()
            .setWorkflowId(run.id() + "/" + suffix)
            .setTaskQueue(TaskQueues.CONTROL)
            .setStaticSummary(summary)
            .build());
  }

  /** The last path segment of a table URI, for short activity summaries. */
  static String tableName(String uri) {
    String u = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    return u.substring(u.lastIndexOf('/') + 1);
  }
}
