package dev.keel.gpu.collective;

import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * A native pointer that is never used after it is freed: operations hold the read lock, so a {@link
 * #close} from another thread waits for operations in flight (at most their timeout) instead of
 * freeing memory a collective is still using.
 */
final class NativeHandle {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final String what;
  private final LongConsumer free;
  private long pointer;

  NativeHandle(String what, long pointer, LongConsumer free) {
    this.what = what;
    this.pointer = pointer;
    this.free = free;
  }

  <T> T apply(LongFunction<T> operation) {
    lock.readLock().lock();
    try {
      if (pointer == 0) {
        throw new IllegalStateException(what + " is closed");
      }
      return operation.apply(pointer);
    } finally {
      lock.readLock().unlock();
    }
  }

  void run(LongConsumer operation) {
    apply(
        p -> {
          operation.accept(p);
          return null;
        });
  }

  void close() {
    lock.writeLock().lock();
    try {
      if (pointer != 0) {
        long p = pointer;
        pointer = 0;
        free.accept(p);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }
}
