package dev.keel.workflows.pipeline;

import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * ETL → train → infer, each stage an activity on its own task queue. Started as workflow type
 * {@code Pipeline} on {@code keel-control}, e.g. {@code temporal workflow start --type Pipeline
 * --task-queue keel-control --input '{...}'}.
 */
@WorkflowInterface
public interface PipelineWorkflow {
  String TYPE = "Pipeline";

  @WorkflowMethod(name = TYPE)
  PipelineResult run(PipelineRequest request);

  /** Current stage and the results of the stages done so far. */
  @QueryMethod(name = "progress")
  PipelineProgress progress();
}
