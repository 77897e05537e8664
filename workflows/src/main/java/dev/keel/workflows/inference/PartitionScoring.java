package dev.keel.workflows.inference;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import dev.keel.workflows.experiment.ActivityFailures;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A plan's partitions scored as parallel activities, at most {@code max_parallel_partitions} at a
 * time, each staging its predictions as files; then every staged file committed at once, as one
 * predictions table version. A failed run commits nothing and deletes what it staged.
 */
final class PartitionScoring {
  private final InferenceRequest request;
  private final InferencePlan plan;
  private final String runId;
  private final InferenceStubs stubs;
  private final InferenceStatus status;
  private final PartitionTotals totals = new PartitionTotals();
  private final List<ScorePartitionResult> results = new ArrayList<>();

  /**
   * @param runId the Temporal run id, which names the run's staged files
   */
  PartitionScoring(
      InferenceRequest request,
      InferencePlan plan,
      String runId,
      InferenceStubs stubs,
      InferenceStatus status) {
    this.request = request;
    this.plan = plan;
    this.runId = runId;
    this.stubs = stubs;
    this.status = status;
  }

  /** Scores every partition; throws, after {@link #fail}, when one fails for good. */
  PartitionTotals score() {
    int n = plan.getPartitionsCount();
    InferenceActivities scorer = stubs.scorer(request.getCheckpoint().getUuid());
    List<Promise<ScorePartitionResult>> running = new ArrayList<>();
    int next = 0;
    try {
      while (next < n || !running.isEmpty()) {
        while (next < n && running.size() < request.getMaxParallelPartitions()) {
          InferencePartition p = plan.getPartitions(next++);
          running.add(
              Async.function(
                  scorer::scorePartition,
                  ScorePartitionRequest.newBuilder()
                      .setRequest(request)
                      .setRunId(runId)
                      .setPartition(p)
                      .setPredictionsTableUri(plan.getPredictionsTableUri())
                      .build()));
        }
        Promise.anyOf(running).get();
        for (int i = running.size() - 1; i >= 0; i--) {
          if (running.get(i).isCompleted()) {
            ScorePartitionResult r = running.remove(i).get(); // throws when the partition failed
            results.add(r);
            totals.add(r);
            status.scored(results.size(), totals.rows());
          }
        }
      }
    } catch (ActivityFailure e) {
      fail(running, e);
      throw e;
    }
    if (totals.rows() != plan.getRows()) {
      // the partitions cover every planned row exactly once; anything else is a bug, never
      // committed
      String message = "scored " + totals.rows() + " rows but the plan has " + plan.getRows();
      fail(running, null);
      throw ApplicationFailure.newNonRetryableFailure(
          message, FailureTypes.INVALID_INFERENCE_REQUEST);
    }
    return totals;
  }

  /** Commits the staged files of every partition, in partition order. */
  TableRef commit() {
    results.sort(Comparator.comparingInt(ScorePartitionResult::getIndex));
    CommitPredictionsRequest.Builder commit =
        CommitPredictionsRequest.newBuilder()
            .setPredictionsTableUri(plan.getPredictionsTableUri())
            .setRunId(runId)
            .setRows(totals.rows());
    results.forEach(r -> commit.addAllFiles(r.getFilesList()));
    return stubs.committer(totals.rows()).commit(commit.build());
  }

  /**
   * Lets the partitions still running finish (so nothing writes after the cleanup), then deletes
   * every file the run staged. Nothing was committed, so the predictions table has no new version.
   */
  private void fail(List<Promise<ScorePartitionResult>> running, ActivityFailure cause) {
    status.failed(cause);
    for (Promise<ScorePartitionResult> p : running) {
      try {
        p.get();
      } catch (ActivityFailure ignored) {
        // already failing; its staged files are deleted below like the others
      }
    }
    try {
      stubs
          .discarder(runId)
          .discard(
              DiscardPredictionsRequest.newBuilder()
                  .setPredictionsTableUri(plan.getPredictionsTableUri())
                  .setRunId(runId)
                  .build());
    } catch (ActivityFailure e) {
      // the files are invisible to every reader without a commit; leaving them costs only space
      Workflow.getLogger(PartitionScoring.class)
          .warn(
              "could not discard staged predictions of run {}: {}",
              runId,
              ActivityFailures.rootMessage(e));
    }
  }
}
