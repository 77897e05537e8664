package dev.keel.workflows.testing;

import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Inference activities for pipeline tests, where scoring is not what is tested: every request is
 * one partition of {@code rows} rows with {@code correct} of them right, committed as version 0.
 * The requests the pipeline sent are recorded. (The real activities are tested in the inference
 * module.)
 */
public final class OnePartitionScorer implements InferenceActivities {
  private final List<InferenceRequest> scored;
  private final long rows;
  private final ToLongFunction<InferenceRequest> correct;

  public OnePartitionScorer(List<InferenceRequest> scored, long rows, long correct) {
    this(scored, rows, r -> correct);
  }

  /**
   * {@code correct} tells how many rows a request's checkpoint gets right, e.g. to make one model
   * better.
   */
  public OnePartitionScorer(
      List<InferenceRequest> scored, long rows, ToLongFunction<InferenceRequest> correct) {
    this.scored = scored;
    this.rows = rows;
    this.correct = correct;
  }

  @Override
  public InferencePlan plan(InferenceRequest r) {
    scored.add(r);
    return InferencePlan.newBuilder()
        .setPredictionsTableUri(r.getPredictionsTableUri())
        .setRows(rows)
        .addPartitions(InferencePartition.newBuilder().setRows(rows))
        .build();
  }

  @Override
  public ScorePartitionResult scorePartition(ScorePartitionRequest r) {
    return ScorePartitionResult.newBuilder()
        .setRows(rows)
        .setCorrect(correct.applyAsLong(r.getRequest()))
        .build();
  }

  @Override
  public TableRef commit(CommitPredictionsRequest r) {
    return TableRef.newBuilder().setUri(r.getPredictionsTableUri()).build();
  }

  @Override
  public void discard(DiscardPredictionsRequest r) {}
}
