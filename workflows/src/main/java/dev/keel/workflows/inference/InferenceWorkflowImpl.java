package dev.keel.workflows.inference;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.TableRef;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * See {@link InferenceWorkflow}. The run in order: check the request ({@link InferenceRequests}),
 * plan the partitions and prepare the drift check ({@link DriftStage}), score the partitions and
 * commit them ({@link PartitionScoring}), then check the drift. {@link InferenceStatus} shows where
 * it is. Deterministic: all I/O happens in the activities.
 */
public class InferenceWorkflowImpl implements InferenceWorkflow {
  /** Partitions scored at once unless the request says otherwise. */
  public static final int DEFAULT_PARALLEL_PARTITIONS = 4;

  /**
   * A data file with more rows of the split than this is scored as several row ranges. Every
   * partition pays fixed costs (a task round trip, a snapshot and scan of the table, decoding its
   * file from the first row up to its range: Parquet cannot seek to a row inside a row group, and
   * one staged file), which at 2,500 rows were a quarter of a small CNN's scoring time; smaller
   * partitions only pay off when there are more workers than a split has partitions of this size.
   */
  public static final long DEFAULT_PARTITION_ROWS = 10_000;

  private final InferenceStatus status = new InferenceStatus();

  @Override
  public InferenceResult run(InferenceRequest input) {
    InferenceRequest request = InferenceRequests.withDefaults(validate(input));
    InferenceStubs stubs = new InferenceStubs(request);
    long started = Workflow.currentTimeMillis();
    // The Temporal run id: unique per run, stable across replays and activity retries.
    String runId = Workflow.getInfo().getRunId();
    status.planning(stubs.what());
    InferencePlan plan;
    DriftStage drift = null;
    try {
      plan = stubs.planner().plan(request);
      if (request.hasDrift()) {
        drift = DriftStage.prepare(request);
      }
    } catch (ActivityFailure e) {
      status.refused(e);
      throw e;
    }
    int n = plan.getPartitionsCount();
    status.scoring(plan);
    PartitionScoring scoring = new PartitionScoring(request, plan, runId, stubs, status);
    PartitionTotals totals = scoring.score();
    TableRef predictions = null;
    if (request.getEvaluateOnly()) {
      status.evaluated(totals.rows(), n, totals.accuracy());
    } else {
      status.committing(n, totals.rows(), plan.getPredictionsTableUri());
      predictions = scoring.commit();
      status.committed(totals.rows(), n, totals.accuracy(), predictions);
    }
    InferenceResult.Builder result =
        InferenceResult.newBuilder()
            .setRows(totals.rows())
            .setAccuracy(totals.accuracy())
            .setCheckpointUuid(request.getCheckpoint().getUuid())
            .setSeconds((Workflow.currentTimeMillis() - started) / 1000.0)
            .setRunId(runId)
            .setPartitions(n)
            .setStatistics(totals.statistics())
            .setModelVersion(request.getModelVersion())
            .addAllClasses(totals.classes(plan.getClassNamesList()));
    if (predictions != null) {
      result.setPredictions(predictions);
    }
    // after the commit: a drift marks the run, it never withholds its predictions
    if (drift != null) {
      DriftReport report = drift.check(request, totals.statistics(), predictions, runId);
      result.setDrift(report);
      status.driftChecked(totals.rows(), n, report);
    }
    return result.build();
  }

  @Override
  public InferenceProgress progress() {
    return status.progress();
  }

  /** Missing fields are refused before any activity runs, naming the field. */
  private InferenceRequest validate(InferenceRequest request) {
    List<String> problems = InferenceRequests.problems(request);
    if (!problems.isEmpty()) {
      String message = "invalid inference request: " + String.join("; ", problems);
      status.invalid(message);
      throw ApplicationFailure.newNonRetryableFailure(
          message, FailureTypes.INVALID_INFERENCE_REQUEST);
    }
    return request;
  }
}
