package dev.keel.gpu.collective;

import java.time.Duration;
import java.util.Objects;

/** A {@link ProcessGroup} on c10d's ProcessGroupGloo: CPU tensors over TCP. */
public final class GlooProcessGroup extends NativeProcessGroup {
  private static final Natives NATIVES =
      new Natives() {
        @Override
        public void free(long group) {
          C10d.freeGroup(group);
        }

        @Override
        public void allreduce(long group, long[] tensors, long bucketBytes) {
          C10d.allreduce(group, tensors, bucketBytes);
        }

        @Override
        public void broadcast(long group, long[] tensors, int root) {
          C10d.broadcast(group, tensors, root);
        }

        @Override
        public void barrier(long group) {
          C10d.barrier(group);
        }

        @Override
        public long[] benchAllreduce(long group, long bytes, int iterations) {
          return C10d.benchAllreduce(group, bytes, iterations);
        }

        @Override
        public double checkAllreduce(long group, int rank, int size, long elements) {
          return C10d.checkAllreduce(group, rank, size, elements);
        }
      };

  private GlooProcessGroup(long pointer, int rank, int size) {
    super(NATIVES, pointer, rank, size, "gloo");
  }

  /**
   * Joins the group: blocks until all {@code size} ranks have called this with the same store (or
   * the timeout expires). Use one store per group.
   *
   * @param host the address (or host name) this rank's Gloo connections bind to and are reached at,
   *     e.g. {@code 127.0.0.1} for ranks on one machine
   * @param timeout for the rendezvous and for every collective of the group
   * @throws CollectiveException when a rank does not join within the timeout
   */
  public static GlooProcessGroup create(
      Store store, int rank, int size, String host, Duration timeout) {
    checkArguments(store, rank, size, timeout);
    Objects.requireNonNull(host, "host");
    long millis = Store.millis(timeout);
    long pointer = store.withPointer(s -> C10d.createGroup(s, rank, size, host, millis));
    return new GlooProcessGroup(pointer, rank, size);
  }
}
