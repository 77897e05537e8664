package dev.keel.gpu.collective;

/**
 * The entry points of {@code libkeel_c10d_nccl.so}: the same collectives as {@link C10d} on c10d's
 * ProcessGroupNCCL. The store comes from {@link C10d}'s library.
 */
final class C10dNccl {
  private C10dNccl() {}

  static native long createGroup(long store, int rank, int size, String host, long timeoutMillis);

  static native void freeGroup(long group);

  static native void allreduce(long group, long[] tensors, long bucketBytes);

  static native void broadcast(long group, long[] tensors, int root);

  static native void barrier(long group);

  static native long[] benchAllreduce(long group, long bytes, int iterations);

  static native double checkAllreduce(long group, int rank, int size, long elements);
}
