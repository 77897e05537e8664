package dev.keel.workflows.inference;

import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Batch inference of one split of a pinned table version with one checkpoint. The split is planned
 * into partitions (one per data file, big files cut into row ranges), each scored by a {@code
 * ScorePartition} activity on {@code keel-infer} (at most {@code max_parallel_partitions} at once)
 * into its own staged Parquet files, and the staged files of every partition are committed as ONE
 * appended version of the predictions table, whose rows carry this run's id. A run that fails
 * commits nothing and deletes what its partitions staged.
 */
@WorkflowInterface
public interface InferenceWorkflow {

  @WorkflowMethod(name = "Inference")
  InferenceResult run(InferenceRequest request);

  /** Stage and partitions scored so far. */
  @QueryMethod
  InferenceProgress progress();
}
