package dev.keel.service.pipeline;

import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.etl.SourceCheck;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.experiment.MetricCheck;
import dev.keel.tables.registry.ModelRegistryTable;
import dev.keel.tables.registry.UnknownModelException;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.util.ArrayList;
import java.util.List;

/** Starts pipeline workflows with readable ids and reads their progress. */
public final class PipelineLauncher {
  private PipelineLauncher() {}

  /**
   * Starts without waiting; the id reads {@code pipeline-<name>-<utc time>}. The data source is
   * checked first ({@link #checkSource}), so a missing path never starts a workflow.
   *
   * @throws ConfigValidationException naming the source field and the path the user gave
   */
  /** The workers a pipeline run needs, for a message to whoever started it on a cluster. */
  public static String expectedWorkers(PipelineRequest request) {
    return "CONTROL, ETL and INFER workers, and TRAIN workers polling "
        + TaskQueues.train(request.getExperiment().getResources().getResourcePool());
  }

  public static String start(WorkflowClient client, PipelineRequest request) {
    checkSource(request, "pipeline request");
    String id = ExperimentLauncher.runId("pipeline", request.getName());
    PipelineWorkflow wf =
        client.newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .setStaticSummary(
                    "Keel pipeline "
                        + ExperimentLauncher.idName(request.getName())
                        + ": ETL of "
                        + request.getSource().getFormat()
                        + " into Delta table "
                        + request.getTargetTable()
                        + ", training, batch inference")
                .build());
    WorkflowClient.start(wf::run, request);
    return id;
  }

  /**
   * The submission-time checks that need I/O, which the config validator (pure, shared with
   * workflow code) cannot do: the source exists, a local CSV/Parquet source has the label column,
   * the model takes the examples a local source gives ({@link ModelFitCheck}), and the searcher's
   * metric is one the trainer reports ({@link MetricCheck}).
   *
   * @param what names the request in the error, e.g. the file it was read from
   * @throws ConfigValidationException listing each problem with its field path
   */
  public static void checkSource(PipelineRequest request, String what) {
    List<ConfigProblem> problems = new ArrayList<>(SourceCheck.problems(request.getSource()));
    problems.addAll(MetricCheck.problems(request.getExperiment(), "experiment."));
    if (problems.stream().noneMatch(p -> p.path().startsWith("source"))) {
      problems.addAll(
          ModelFitCheck.problems(
              request)); // a source that is there: does the model take its examples?
    }
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(what, problems);
    }
  }

  /**
   * The registered version {@code warm_start} names exists in {@code registry} (the stack's storage
   * root): checked where that root is known, before a workflow starts. The workflow resolves it
   * again when it starts.
   *
   * @throws ConfigValidationException naming {@code warm_start.model} and what is missing
   */
  public static void checkWarmStart(
      PipelineRequest request, ModelRegistryTable registry, String what) {
    if (!request.hasWarmStart()) {
      return;
    }
    ModelSelector m = request.getWarmStart().getModel();
    try {
      if (m.getStage() == ModelStage.MODEL_STAGE_UNSPECIFIED) {
        registry.describe(m.getName(), m.getVersion());
      } else if (registry.champion(m.getName()).isEmpty()) {
        String problem =
            registry.list(m.getName()).isEmpty()
                ? "no model named '" + m.getName() + "' in the registry " + registry.tableUri()
                : "model '"
                    + m.getName()
                    + "' has no "
                    + m.getStage()
                    + " (promote a version, or name one with version)";
        throw new UnknownModelException(problem);
      }
    } catch (UnknownModelException e) {
      throw new ConfigValidationException(
          what, List.of(new ConfigProblem("warm_start.model", e.getMessage())));
    }
  }

  public static PipelineProgress progress(WorkflowClient client, String id) {
    return client.newWorkflowStub(PipelineWorkflow.class, id).progress();
  }
}
