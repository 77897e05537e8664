package dev.keel.gpu.collective;

import java.time.Duration;

/**
 * A {@link ProcessGroup} on c10d's ProcessGroupNCCL: CUDA tensors, one GPU per rank. Needs a CUDA
 * build of libtorch under DJL and {@code libkeel_c10d_nccl.so}, which is loaded on first use;
 * without a GPU, {@link #create} fails with a one-line {@link CollectiveException}.
 */
public final class NcclProcessGroup extends NativeProcessGroup {
  private static final Natives NATIVES =
      new Natives() {
        @Override
        public void free(long group) {
          C10dNccl.freeGroup(group);
        }

        @Override
        public void allreduce(long group, long[] tensors, long bucketBytes) {
          C10dNccl.allreduce(group, tensors, bucketBytes);
        }

        @Override
        public void broadcast(long group, long[] tensors, int root) {
          C10dNccl.broadcast(group, tensors, root);
        }

        @Override
        public void barrier(long group) {
          C10dNccl.barrier(group);
        }

        @Override
        public long[] benchAllreduce(long group, long bytes, int iterations) {
          return C10dNccl.benchAllreduce(group, bytes, iterations);
        }

        @Override
        public double checkAllreduce(long group, int rank, int size, long elements) {
          return C10dNccl.checkAllreduce(group, rank, size, elements);
        }
      };

  private NcclProcessGroup(long pointer, int rank, int size) {
    super(NATIVES, pointer, rank, size, "nccl");
  }

  /**
   * Creates the group; NCCL connects the ranks lazily, on the first collective.
   *
   * @param timeout for every collective of the group
   * @throws CollectiveException when there is no CUDA GPU or the NCCL library cannot load
   */
  public static NcclProcessGroup create(Store store, int rank, int size, Duration timeout) {
    checkArguments(store, rank, size, timeout);
    NativeCollectives.loadNccl();
    long millis = Store.millis(timeout);
    long pointer = store.withPointer(s -> C10dNccl.createGroup(s, rank, size, "", millis));
    return new NcclProcessGroup(pointer, rank, size);
  }
}
