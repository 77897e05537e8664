package dev.keel.workflows;

import dev.keel.workflows.experiment.ExperimentWorkflowImpl;
import dev.keel.workflows.experiment.TrialWorkflowImpl;
import dev.keel.workflows.inference.InferenceWorkflowImpl;
import dev.keel.workflows.pipeline.PipelineWorkflowImpl;
import dev.keel.workflows.pool.PoolProvisionerWorkflowImpl;
import io.temporal.common.converter.DataConverterException;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkflowImplementationOptions;

/** Registers Keel's workflow implementations on a {@code keel-control} worker. */
public final class KeelWorkflows {
  private KeelWorkflows() {}

  /**
   * An input that cannot be decoded fails the workflow instead of failing its task forever (a
   * workflow-task failure is retried indefinitely and the run would sit RUNNING).
   */
  public static WorkflowImplementationOptions options() {
    return WorkflowImplementationOptions.newBuilder()
        .setFailWorkflowExceptionTypes(DataConverterException.class)
        .build();
  }

  public static void register(Worker worker) {
    worker.registerWorkflowImplementationTypes(
        options(),
        PipelineWorkflowImpl.class,
        ExperimentWorkflowImpl.class,
        TrialWorkflowImpl.class,
        InferenceWorkflowImpl.class,
        PoolProvisionerWorkflowImpl.class);
  }
}
