package dev.keel.workflows.experiment;

import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialRequest;

/**
 * The Temporal side of an experiment's trials, so that {@link SearcherDriver} and its tests need no
 * workflow environment. {@link ChildTrialWorkflows} is the one used in workflow code.
 */
interface TrialWorkflows {

  /**
   * Starts the trial's workflow and returns once it runs (so a command to it cannot come first).
   */
  void start(String workflowId, TrialRequest request, String summary);

  /**
   * Signals a trial. One that ended after sending a report the experiment has not handled yet
   * refuses the signal; that is no error, the report decides.
   */
  void command(String workflowId, TrialCommand command);
}
