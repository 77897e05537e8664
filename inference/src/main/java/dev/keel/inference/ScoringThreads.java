package dev.keel.inference;

import dev.keel.gpu.train.ThreadWork;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The long-lived threads on which this JVM's partitions are scored. libtorch keeps per-thread native
 * state (the calling thread's OpenMP team and intra-op thread count, kernel caches), and Temporal runs
 * each activity on an executor thread it creates and retires as it likes, so scoring there set the
 * team up again on new threads. Here a partition borrows an idle scoring thread (or a new one when
 * all are busy) and gives it back afterwards: threads are never retired, so a process ends up with
 * as many as partitions it ever scored at once (its activity slots), each set up once.
 */
final class ScoringThreads {
  private static final ArrayDeque<ExecutorService> IDLE = new ArrayDeque<>();
  private static final AtomicInteger CREATED = new AtomicInteger();

  private ScoringThreads() {}

  /**
   * Runs {@code work} on a scoring thread no other call is using and waits for it. An interrupt of
   * the caller does not abandon the work (it holds native resources it must close or give back);
   * the caller's interrupt flag is set again when the work is done.
   */
  static <T> T call(Callable<T> work) throws IOException {
    try (Lease lease = lease()) {
      return lease.call(work);
    }
  }

  /** A scoring thread no other call uses until the lease is closed. */
  static Lease lease() {
    return new Lease(borrow());
  }

  /**
   * One partition's hold on a scoring thread: what it submits runs there in order, so a model can
   * be loaded there while the caller reads the rows it will score.
   */
  static final class Lease implements AutoCloseable {
    private final ExecutorService thread;

    private Lease(ExecutorService thread) {
      this.thread = thread;
    }

    <T> Future<T> submit(Callable<T> work) {
      return thread.submit(work);
    }

    /** As {@link ScoringThreads#call}, on this lease's thread. */
    <T> T call(Callable<T> work) throws IOException {
      return ThreadWork.await(thread.submit(work), () -> {});
    }

    @Override
    public void close() {
      synchronized (IDLE) {
        IDLE.push(thread);
      }
    }
  }

  /** Scoring threads started in this JVM so far. */
  static int created() {
    return CREATED.get();
  }

  private static ExecutorService borrow() {
    synchronized (IDLE) {
      if (!IDLE.isEmpty()) {
        return IDLE.pop();
      }
    }
    int n = CREATED.incrementAndGet();
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "keel-scoring-" + n);
      t.setDaemon(true);
      return t;
    });
  }
}
