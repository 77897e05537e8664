package dev.keel.workflows.inference;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.activities.infer.InferenceActivityOptions;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.DriftConfigRules;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import dev.keel.workflows.experiment.ActivityFailures;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** See {@link InferenceWorkflow}. Deterministic: all I/O happens in the activities. */
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

  private final InferenceProgress.Builder progress =
      InferenceProgress.newBuilder().setStage(InferenceProgress.Stage.plan);

  /**
   * How long an inference worker may stay silent before its attempt counts as dead (the request's,
   * or 60 s).
   */
  private Duration heartbeat = ConfigDefaults.HEARTBEAT_TIMEOUT;

  @Override
  public InferenceResult run(InferenceRequest input) {
    InferenceRequest request = withDefaults(validate(input));
    heartbeat =
        request.getHeartbeatTimeoutSeconds() > 0
            ? Duration.ofSeconds(request.getHeartbeatTimeoutSeconds())
            : ConfigDefaults.HEARTBEAT_TIMEOUT;
    long started = Workflow.currentTimeMillis();
    // The Temporal run id: unique per run, stable across replays and activity retries.
    String runId = Workflow.getInfo().getRunId();
    String what =
        "the "
            + request.getSplit()
            + " split of "
            + request.getData().getUri()
            + " v"
            + request.getData().getVersion();
    Workflow.setCurrentDetails("Keel inference: planning partitions of " + what);
    InferencePlan plan;
    DriftStage drift = null;
    try {
      plan = run("Plan the partitions of " + what).plan(request);
      if (request.hasDrift()) {
        drift = DriftStage.prepare(request);
      }
    } catch (ActivityFailure e) {
      progress.setStage(InferenceProgress.Stage.failed);
      Workflow.setCurrentDetails("Keel inference refused: " + ActivityFailures.rootMessage(e));
      throw e;
    }
    int n = plan.getPartitionsCount();
    progress.setStage(InferenceProgress.Stage.score).setPartitions(n).setRows(plan.getRows());
    details();

    InferenceActivities scorer =
        partitions(
            "Score a partition of "
                + what
                + " with checkpoint "
                + request.getCheckpoint().getUuid());
    PartitionTotals totals = new PartitionTotals();
    List<ScorePartitionResult> results = new ArrayList<>();
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
            progress.setScored(results.size()).setRowsScored(totals.rows());
            details();
          }
        }
      }
    } catch (ActivityFailure e) {
      fail(plan, runId, running, e);
      throw e;
    }
    if (totals.rows() != plan.getRows()) {
      // the partitions cover every planned row exactly once; anything else is a bug, never
      // committed
      String message = "scored " + totals.rows() + " rows but the plan has " + plan.getRows();
      fail(plan, runId, running, null);
      throw ApplicationFailure.newNonRetryableFailure(
          message, FailureTypes.INVALID_INFERENCE_REQUEST);
    }

    if (request.getEvaluateOnly()) {
      progress.setStage(InferenceProgress.Stage.done);
      Workflow.setCurrentDetails(
          String.format(
              Locale.ROOT,
              "Keel inference: done, evaluated %d rows in %d partitions, accuracy %.4f (nothing written)",
              totals.rows(),
              n,
              totals.accuracy()));
      return withDrift(
              result(request, totals, n, runId, started)
                  .addAllClasses(totals.classes(plan.getClassNamesList())),
              drift,
              request,
              totals,
              null,
              runId)
          .build();
    }
    progress.setStage(InferenceProgress.Stage.commit);
    Workflow.setCurrentDetails(
        "Keel inference: committing "
            + n
            + " partitions ("
            + totals.rows()
            + " rows) to "
            + plan.getPredictionsTableUri());
    results.sort(Comparator.comparingInt(ScorePartitionResult::getIndex));
    CommitPredictionsRequest.Builder commit =
        CommitPredictionsRequest.newBuilder()
            .setPredictionsTableUri(plan.getPredictionsTableUri())
            .setRunId(runId)
            .setRows(totals.rows());
    results.forEach(r -> commit.addAllFiles(r.getFilesList()));
    TableRef predictions =
        run("Commit " + totals.rows() + " predictions of " + what).commit(commit.build());

    progress.setStage(InferenceProgress.Stage.done);
    Workflow.setCurrentDetails(
        String.format(
            Locale.ROOT,
            "Keel inference: done, %d rows in %d partitions, accuracy %.4f, %s @ version %d",
            totals.rows(),
            n,
            totals.accuracy(),
            predictions.getUri(),
            predictions.getVersion()));
    return withDrift(
            result(request, totals, n, runId, started)
                .addAllClasses(totals.classes(plan.getClassNamesList()))
                .setPredictions(predictions),
            drift,
            request,
            totals,
            predictions,
            runId)
        .build();
  }

  /**
   * The drift check runs after the commit: a drift marks the run, it never withholds its
   * predictions.
   */
  private static InferenceResult.Builder withDrift(
      InferenceResult.Builder result,
      DriftStage drift,
      InferenceRequest request,
      PartitionTotals totals,
      TableRef predictions,
      String runId) {
    if (drift != null) {
      DriftReport report = drift.check(request, totals.statistics(), predictions, runId);
      result.setDrift(report);
      Workflow.setCurrentDetails(
          String.format(
              Locale.ROOT,
              "Keel inference: done, %d rows in %d partitions, %s: %s %.4f %s threshold %.4f%s",
              totals.rows(),
              result.getPartitions(),
              report.getDrifted() ? "DRIFTED" : "no drift",
              report.getMeasure(),
              report.getScore(),
              report.getDrifted() ? ">" : "<=",
              report.getThreshold(),
              report.getTriggeredSchedule().isEmpty()
                  ? ""
                  : ", triggered schedule " + report.getTriggeredSchedule()));
    }
    return result;
  }

  private static InferenceResult.Builder result(
      InferenceRequest request,
      PartitionTotals totals,
      int partitions,
      String runId,
      long started) {
    return InferenceResult.newBuilder()
        .setRows(totals.rows())
        .setAccuracy(totals.accuracy())
        .setCheckpointUuid(request.getCheckpoint().getUuid())
        .setSeconds((Workflow.currentTimeMillis() - started) / 1000.0)
        .setRunId(runId)
        .setPartitions(partitions)
        .setStatistics(totals.statistics())
        .setModelVersion(request.getModelVersion());
  }

  @Override
  public InferenceProgress progress() {
    return progress.build();
  }

  /**
   * Lets the partitions still running finish (so nothing writes after the cleanup), then deletes
   * every file the run staged. Nothing was committed, so the predictions table has no new version.
   */
  private void fail(
      InferencePlan plan,
      String runId,
      List<Promise<ScorePartitionResult>> running,
      ActivityFailure cause) {
    progress.setStage(InferenceProgress.Stage.failed);
    Workflow.setCurrentDetails(
        "Keel inference failed after "
            + progress.getScored()
            + " of "
            + progress.getPartitions()
            + " partitions"
            + (cause == null ? "" : ": " + ActivityFailures.rootMessage(cause)));
    for (Promise<ScorePartitionResult> p : running) {
      try {
        p.get();
      } catch (ActivityFailure ignored) {
        // already failing; its staged files are deleted below like the others
      }
    }
    try {
      run("Discard the staged predictions of run " + runId)
          .discard(
              DiscardPredictionsRequest.newBuilder()
                  .setPredictionsTableUri(plan.getPredictionsTableUri())
                  .setRunId(runId)
                  .build());
    } catch (ActivityFailure e) {
      // the files are invisible to every reader without a commit; leaving them costs only space
      Workflow.getLogger(InferenceWorkflowImpl.class)
          .warn(
              "could not discard staged predictions of run {}: {}",
              runId,
              ActivityFailures.rootMessage(e));
    }
  }

  /** Missing fields are refused before any activity runs, naming the field. */
  private InferenceRequest validate(InferenceRequest request) {
    List<String> problems = new ArrayList<>();
    if (request.getCheckpoint().getUri().isBlank()) {
      problems.add("checkpoint.uri: required");
    }
    if (request.getData().getUri().isBlank()) {
      problems.add("data.uri: required");
    }
    if (request.getData().getVersion() < 0) {
      problems.add("data.version: must be >= 0, got " + request.getData().getVersion());
    }
    if (request.getPredictionsTableUri().isBlank() && !request.getEvaluateOnly()) {
      problems.add("predictions_table_uri: required");
    }
    if (request.getMaxParallelPartitions() < 0) {
      problems.add(
          "max_parallel_partitions: must be >= 0, got " + request.getMaxParallelPartitions());
    }
    if (request.getMaxPartitionRows() < 0) {
      problems.add("max_partition_rows: must be >= 0, got " + request.getMaxPartitionRows());
    }
    if (request.getHeartbeatTimeoutSeconds() < 0) {
      problems.add(
          "heartbeat_timeout_seconds: must be >= 0 (0: 60 s), got "
              + request.getHeartbeatTimeoutSeconds());
    }
    if (request.hasDrift()) {
      DriftConfigRules.validate(request.getDrift(), "drift")
          .forEach(p -> problems.add(p.toString()));
      if (!request.getDrift().hasReference() && !request.getModelVersion().matches(".+/[0-9]+")) {
        problems.add(
            "drift.reference: required when model_version (name/version) does not name a registered model");
      }
    }
    if (!problems.isEmpty()) {
      String message = "invalid inference request: " + String.join("; ", problems);
      progress.setStage(InferenceProgress.Stage.failed);
      Workflow.setCurrentDetails(message);
      throw ApplicationFailure.newNonRetryableFailure(
          message, FailureTypes.INVALID_INFERENCE_REQUEST);
    }
    return request;
  }

  private static InferenceRequest withDefaults(InferenceRequest request) {
    InferenceRequest.Builder b = request.toBuilder();
    if (b.getSplit().isEmpty()) {
      b.setSplit(Splits.TEST);
    }
    if (b.getMaxParallelPartitions() == 0) {
      b.setMaxParallelPartitions(DEFAULT_PARALLEL_PARTITIONS);
    }
    if (b.getMaxPartitionRows() == 0) {
      b.setMaxPartitionRows(DEFAULT_PARTITION_ROWS);
    }
    return b.build();
  }

  private void details() {
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

  private InferenceActivities run(String summary) {
    return Workflow.newActivityStub(
        InferenceActivities.class, InferenceActivityOptions.forRun(summary, heartbeat));
  }

  private InferenceActivities partitions(String summary) {
    return Workflow.newActivityStub(
        InferenceActivities.class, InferenceActivityOptions.forPartition(summary, heartbeat));
  }
}
