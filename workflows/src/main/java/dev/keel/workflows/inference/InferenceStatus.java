package dev.keel.workflows.inference;

import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.TableRef;
import dev.keel.workflows.experiment.ActivityFailures;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.Locale;

/**
 * What an Inference run shows while it runs: the progress query's stage and counts, and the current
 * details in Temporal's UI, every line of which is worded here.
 */
final class InferenceStatus {
  private final InferenceProgress.Builder progress =
      InferenceProgress.newBuilder().setStage(InferenceProgress.Stage.plan);

  InferenceProgress progress() {
    return progress.build();
  }

  /**
   * @param what the scored split, as {@link InferenceStubs#what} names it
   */
  void planning(String what) {
    Workflow.setCurrentDetails("Keel inference: planning partitions of " + what);
  }

  /** The request was refused before any activity ran; {@code message} says why. */
  void invalid(String message) {
    progress.setStage(InferenceProgress.Stage.failed);
    Workflow.setCurrentDetails(message);
  }

  /** The plan, or the drift reference, was refused. */
  void refused(ActivityFailure e) {
    progress.setStage(InferenceProgress.Stage.failed);
    Workflow.setCurrentDetails("Keel inference refused: " + ActivityFailures.rootMessage(e));
  }

  void scoring(InferencePlan plan) {
    progress
        .setStage(InferenceProgress.Stage.score)
        .setPartitions(plan.getPartitionsCount())
        .setRows(plan.getRows());
    scoredDetails();
  }

  void scored(int partitions, long rows) {
    progress.setScored(partitions).setRowsScored(rows);
    scoredDetails();
  }

  /**
   * @param cause null when no activity failed (the partitions did not add up to the plan)
   */
  void failed(ActivityFailure cause) {
    progress.setStage(InferenceProgress.Stage.failed);
    Workflow.setCurrentDetails(
        "Keel inference failed after "
            + progress.getScored()
            + " of "
            + progress.getPartitions()
            + " partitions"
            + (cause == null ? "" : ": " + ActivityFailures.rootMessage(cause)));
  }

  void evaluated(long rows, int partitions, double accuracy) {
    progress.setStage(InferenceProgress.Stage.done);
    Workflow.setCurrentDetails(
        String.format(
            Locale.ROOT,
            "Keel inference: done, evaluated %d rows in %d partitions, accuracy %.4f (nothing written)",
            rows,
            partitions,
            accuracy));
  }

  void committing(int partitions, long rows, String predictionsTableUri) {
    progress.setStage(InferenceProgress.Stage.commit);
    Workflow.setCurrentDetails(
        "Keel inference: committing "
            + partitions
            + " partitions ("
            + rows
            + " rows) to "
            + predictionsTableUri);
  }

  void committed(long rows, int partitions, double accuracy, TableRef predictions) {
    progress.setStage(InferenceProgress.Stage.done);
    Workflow.setCurrentDetails(
        String.format(
            Locale.ROOT,
            "Keel inference: done, %d rows in %d partitions, accuracy %.4f, %s @ version %d",
            rows,
            partitions,
            accuracy,
            predictions.getUri(),
            predictions.getVersion()));
  }

  /** Replaces the done line once the drift check ran. */
  void driftChecked(long rows, int partitions, DriftReport report) {
    Workflow.setCurrentDetails(
        String.format(
            Locale.ROOT,
            "Keel inference: done, %d rows in %d partitions, %s: %s %.4f %s threshold %.4f%s",
            rows,
            partitions,
            report.getDrifted() ? "DRIFTED" : "no drift",
            report.getMeasure(),
            report.getScore(),
            report.getDrifted() ? ">" : "<=",
            report.getThreshold(),
            report.getTriggeredSchedule().isEmpty()
                ? ""
                : ", triggered schedule " + report.getTriggeredSchedule()));
  }

  private void scoredDetails() {
    Workflow.setCurrentDetails(
        "Keel inference: scored "
            + progress.getScored()
            + " of "
            + progress.getPartitions()
            + " partitions ("
            + progress.getRowsScored()
            + " of "
            + progress.getRows()
            + " rows)");
  }
}
