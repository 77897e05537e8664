package dev.keel.gpu.collective;

import ai.djl.ndarray.NDArray;
import ai.djl.pytorch.engine.PtNDArray;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** What Gloo and NCCL groups share: the entry points differ only by the library that holds them. */
abstract class NativeProcessGroup implements ProcessGroup {
  /**
   * Buckets of up to 4 MiB: large enough that a bucket's collective is bandwidth-bound on loopback
   * and Ethernet, small enough that copying a bucket in and out overlaps the previous bucket's
   * collective.
   */
  static final long DEFAULT_BUCKET_BYTES = 4L << 20;

  /** The native half of one backend. */
  interface Natives {
    void free(long group);

    void allreduce(long group, long[] tensors, long bucketBytes);

    void broadcast(long group, long[] tensors, int root);

    void barrier(long group);

    long[] benchAllreduce(long group, long bytes, int iterations);

    double checkAllreduce(long group, int rank, int size, long elements);
  }

  private final Natives natives;
  private final NativeHandle handle;
  private final int rank;
  private final int size;
  private final String backend;

  NativeProcessGroup(Natives natives, long pointer, int rank, int size, String backend) {
    this.natives = natives;
    this.handle =
        new NativeHandle(
            backend + " process group (rank " + rank + " of " + size + ")", pointer, natives::free);
    this.rank = rank;
    this.size = size;
    this.backend = backend;
  }

  static void checkArguments(Store store, int rank, int size, Duration timeout) {
    Objects.requireNonNull(store, "store");
    if (size < 1 || rank < 0 || rank >= size) {
      throw new IllegalArgumentException("rank " + rank + " of " + size);
    }
    Store.millis(timeout);
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public String backend() {
    return backend;
  }

  @Override
  public void allreduceSum(List<NDArray> tensors) {
    allreduce(tensors, 0);
  }

  @Override
  public void allreduceSumBucketed(List<NDArray> tensors) {
    allreduceSumBucketed(tensors, DEFAULT_BUCKET_BYTES);
  }

  @Override
  public void allreduceSumBucketed(List<NDArray> tensors, long bucketBytes) {
    if (bucketBytes <= 0) {
      throw new IllegalArgumentException("bucket bytes " + bucketBytes);
    }
    allreduce(tensors, bucketBytes);
  }

  private void allreduce(List<NDArray> tensors, long bucketBytes) {
    long[] pointers = pointers(tensors);
    if (pointers.length > 0) {
      handle.run(g -> natives.allreduce(g, pointers, bucketBytes));
    }
  }

  @Override
  public void broadcast(List<NDArray> tensors, int root) {
    if (root < 0 || root >= size) {
      throw new IllegalArgumentException("root " + root + " is not a rank of " + size);
    }
    long[] pointers = pointers(tensors);
    if (pointers.length > 0) {
      handle.run(g -> natives.broadcast(g, pointers, root));
    }
  }

  @Override
  public void barrier() {
    handle.run(natives::barrier);
  }

  /**
   * Benchmark only: {@code iterations} allreduces of a {@code bytes}-byte float tensor that the
   * library allocates itself (no DJL; kept for the next call of the same size), each timed
   * natively, in nanoseconds.
   */
  public long[] benchmarkPlainAllreduce(long bytes, int iterations) {
    if (bytes < 4 || iterations < 1) {
      throw new IllegalArgumentException(bytes + " bytes, " + iterations + " iterations");
    }
    return handle.apply(g -> natives.benchAllreduce(g, bytes, iterations));
  }

  /**
   * Sums a tensor of {@code elements} floats that the library fills itself (no DJL), on this
   * backend's device, and returns the largest distance from the exact sum: 0 when the ranks' data
   * all arrived (sums stay below 2^24, exact in float, up to two ranks). Collective: every rank
   * calls it with the same {@code elements}.
   */
  public double checkAllreduce(long elements) {
    if (elements < 1 || elements > (1 << 22)) {
      throw new IllegalArgumentException(elements + " elements (1 to 2^22)");
    }
    return handle.apply(g -> natives.checkAllreduce(g, rank, size, elements));
  }

  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return backend + " process group, rank " + rank + " of " + size;
  }

  /**
   * DJL's PyTorch arrays carry a pointer to their {@code at::Tensor}; c10d works on that tensor.
   */
  private static long[] pointers(List<NDArray> tensors) {
    long[] out = new long[tensors.size()];
    for (int i = 0; i < out.length; i++) {
      NDArray a = Objects.requireNonNull(tensors.get(i), "tensor " + i);
      if (!(a instanceof PtNDArray pt)) {
        throw new IllegalArgumentException(
            "tensor "
                + i
                + " is a "
                + a.getClass().getName()
                + "; collectives need arrays of DJL's PyTorch engine");
      }
      out[i] = pt.getHandle();
    }
    return out;
  }
}
