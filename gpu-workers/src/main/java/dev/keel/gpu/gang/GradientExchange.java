package dev.keel.gpu.gang;

import ai.djl.ndarray.NDArray;
import java.util.List;

/**
 * What data-parallel training needs from the ranks of a gang: gradients averaged over all ranks
 * before every optimizer step, and one rank's parameters copied to the others at the start. The
 * single-rank exchange does nothing, so one slot trains exactly as before.
 */
public interface GradientExchange extends AutoCloseable {

  /** One rank alone. */
  GradientExchange SINGLE =
      new GradientExchange() {
        @Override
        public int rank() {
          return 0;
        }

        @Override
        public int size() {
          return 1;
        }

        @Override
        public void average(List<NDArray> arrays) {}

        @Override
        public void broadcastFromRankZero(List<NDArray> arrays) {}

        @Override
        public void close() {}
      };

  int rank();

  int size();

  /**
   * Replaces every array, in place, by its mean over all ranks (same shapes and order on every
   * rank).
   */
  void average(List<NDArray> arrays);

  /** Overwrites every array, in place, with rank 0's. */
  void broadcastFromRankZero(List<NDArray> arrays);

  @Override
  void close();
}
