package dev.keel.gpu.collective;

/**
 * The entry points of {@code libkeel_c10d.so} (TCPStore, Gloo, benchmarks); bound once {@link
 * NativeCollectives#load} has loaded it. Handles are pointers owned by {@link Store} and {@link
 * NativeProcessGroup}.
 */
final class C10d {
  private C10d() {}

  static native long storeCreate(
      String host, int port, int worldSize, boolean server, long timeoutMillis);

  static native int storePort(long store);

  static native void storeSet(long store, String key, byte[] value);

  static native byte[] storeGet(long store, String key);

  static native long storeAdd(long store, String key, long delta);

  static native void storeFree(long store);

  static native long createGroup(long store, int rank, int size, String host, long timeoutMillis);

  static native void freeGroup(long group);

  /** {@code bucketBytes <= 0}: one allreduce per tensor. */
  static native void allreduce(long group, long[] tensors, long bucketBytes);

  static native void broadcast(long group, long[] tensors, int root);

  static native void barrier(long group);

  static native long[] benchAllreduce(long group, long bytes, int iterations);

  static native long[] benchMemcpy(long bytes, int iterations);

  static native double checkAllreduce(long group, int rank, int size, long elements);
}
