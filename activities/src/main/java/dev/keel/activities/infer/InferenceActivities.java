package dev.keel.activities.infer;

import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The steps of the {@code Inference} workflow, all on {@code keel-infer}: plan the partitions of a
 * table version, score each partition into staged Parquet files, commit every staged file of a run
 * as one predictions table version, or discard a failed run's staged files.
 */
@ActivityInterface
public interface InferenceActivities {

  /**
   * Checks the request (checkpoint, table version, split, predictions table schema) and splits the
   * split's rows into partitions: one per data file, big files cut into row ranges.
   */
  @ActivityMethod(name = "PlanInference")
  InferencePlan plan(InferenceRequest request);

  /**
   * Scores one partition and writes its predictions under the run's staging directory for that
   * partition ({@code <table>/run-<run id>/part-<index>/}); a new attempt first deletes what an
   * earlier one left there. Commits nothing.
   */
  @ActivityMethod(name = "ScorePartition")
  ScorePartitionResult scorePartition(ScorePartitionRequest request);

  /**
   * Commits the staged files as one appended table version with the Delta transaction id {@code
   * keel-infer:<run id>}: a repeated commit of the same run returns the version that holds it and
   * writes nothing.
   */
  @ActivityMethod(name = "CommitPredictions")
  TableRef commit(CommitPredictionsRequest request);

  /** Deletes the staged files of a run that will not be committed. */
  @ActivityMethod(name = "DiscardPredictions")
  void discard(DiscardPredictionsRequest request);
}
