/**
 * Experiments: a searcher in workflow code, one child workflow per trial, continue-as-new with the
 * searcher's snapshot, pause/activate/kill, catalog rows and checkpoint GC. The experiment workflow
 * is a loop over four collaborators, each with one job: {@code TrialBook} (what the trials
 * reported), {@code SearcherDriver} (the searcher's operations as trial starts and commands),
 * {@code ExperimentControl} (the user's requests) and {@code ExperimentHousekeeping} (catalog,
 * checkpoint GC, search attributes); {@code ExperimentRun} holds them for one run, which {@code
 * ExperimentStart} begins or {@code ExperimentCarryOver} restores. The trial workflow is a loop
 * over {@code TrialInbox} (the experiment's commands), {@code TrialStep} (one training step) and
 * {@code TrialProgress} (what the trial did and reports); {@code TrialMessages} words it.
 */
package dev.keel.workflows.experiment;
