package dev.keel.gpu.collective;

import ai.djl.ndarray.NDArray;
import java.util.List;

/**
 * A fixed set of ranks (one per process) that run collectives together on c10d. Every rank must
 * call the same collectives in the same order with arrays of the same shapes and types; the arrays
 * are changed in place (their native memory, no copy through Java). A collective that cannot finish
 * (a peer died, hangs or never joined) throws {@link CollectiveException} within the group's
 * timeout. After such a failure the arrays of the failed call hold undefined values (its later ops
 * may still be failing on c10d's threads, which keep the memory alive) and the group is unusable:
 * close it. Close the group on every rank when done; {@link #close} is idempotent.
 */
public interface ProcessGroup extends AutoCloseable {
  int rank();

  int size();

  /** {@code gloo} or {@code nccl}. */
  String backend();

  /**
   * Replaces each array by its sum over all ranks, one collective per array (all started, then all
   * awaited).
   */
  void allreduceSum(List<NDArray> tensors);

  /**
   * Same result as {@link #allreduceSum}, with small arrays of the same type packed into shared
   * buckets (of a default size) so that many small gradients cost a few collectives instead of one
   * each. An array as large as a bucket is reduced alone, in place, without a copy.
   */
  void allreduceSumBucketed(List<NDArray> tensors);

  /** {@link #allreduceSumBucketed(List)} with buckets of at most {@code bucketBytes}. */
  void allreduceSumBucketed(List<NDArray> tensors, long bucketBytes);

  /** Copies rank {@code root}'s arrays into every other rank's arrays. */
  void broadcast(List<NDArray> tensors, int root);

  /** Returns once every rank has called it. */
  void barrier();

  @Override
  void close();
}
