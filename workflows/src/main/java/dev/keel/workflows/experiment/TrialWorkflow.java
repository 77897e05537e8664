package dev.keel.workflows.experiment;

import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One trial, a child of its experiment: trains to the lengths the experiment's searcher asks for,
 * validating and checkpointing on the way, and reports each event to the experiment by signal. Its
 * workflow id is {@code <experiment id>/trial-<n>}.
 */
@WorkflowInterface
public interface TrialWorkflow {
  String TYPE = "Trial";

  @WorkflowMethod(name = TYPE)
  TrialState run(TrialRequest request);

  /** Train further, close, kill, pause or activate. */
  @SignalMethod(name = "command")
  void command(TrialCommand command);

  @QueryMethod(name = "state")
  TrialState state();

  static String workflowId(String experimentId, long trialId) {
    return experimentId + "/trial-" + trialId;
  }
}
