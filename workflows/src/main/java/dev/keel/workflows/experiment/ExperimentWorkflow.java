package dev.keel.workflows.experiment;

import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialReport;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * A hyperparameter search: runs a searcher from {@code search-strategies} in workflow code, one
 * child {@link TrialWorkflow} per trial, and continues as new (carrying the searcher's snapshot)
 * long before Temporal's history limits. Started as type {@code Experiment} on {@code
 * keel-control}.
 */
@WorkflowInterface
public interface ExperimentWorkflow {
  String TYPE = "Experiment";

  /**
   * The workflow id of the experiment a pipeline runs as its search stage. No slash: an experiment
   * id is a directory name of its checkpoints.
   */
  static String childId(String pipelineId) {
    return pipelineId + "-experiment";
  }

  @WorkflowMethod(name = TYPE)
  ExperimentResult run(ExperimentRequest request);

  /** A trial's validation, exit or close (sent by the trial workflows). */
  @SignalMethod(name = "trialReport")
  void report(TrialReport report);

  /** Stop training after each trial's current step; nothing is lost. */
  @SignalMethod(name = "pause")
  void pause();

  @SignalMethod(name = "activate")
  void activate();

  /** Stop every trial now; the experiment ends KILLED once they have. */
  @SignalMethod(name = "kill")
  void kill();

  /** Stop one trial now; the searcher treats it as stopped by the user. */
  @SignalMethod(name = "killTrial")
  void killTrial(long trialId);

  @QueryMethod(name = "state")
  ExperimentState state();

  /**
   * The catalog rows the experiment holds but has not yet appended to the catalog tables (it
   * appends them in batches), and in {@code sequence} how many batches it has appended: a reader
   * joins them with the tables to see every validation so far, e.g. for live learning curves.
   */
  @QueryMethod(name = "pendingCatalog")
  CatalogAppend pendingCatalog();
}
