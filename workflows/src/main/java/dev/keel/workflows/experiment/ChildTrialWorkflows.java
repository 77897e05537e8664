package dev.keel.workflows.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialRequest;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;

/** Trials as child workflows of the experiment, commanded by signal. Workflow code only. */
final class ChildTrialWorkflows implements TrialWorkflows {

  @Override
  public void start(String workflowId, TrialRequest request, String summary) {
    TrialWorkflow child =
        Workflow.newChildWorkflowStub(
            TrialWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(workflowId)
                .setTaskQueue(TaskQueues.CONTROL)
                // Trials outlive each run of the experiment: it continues as new while they train.
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                .setStaticSummary(summary)
                .build());
    Async.function(child::run, request);
    Workflow.getWorkflowExecution(child).get();
  }

  @Override
  public void command(String workflowId, TrialCommand command) {
    try {
      Workflow.newExternalWorkflowStub(TrialWorkflow.class, workflowId).command(command);
    } catch (SignalExternalWorkflowException e) {
      // The trial closed after sending a report this run has not handled yet; that report decides.
    }
  }
}
