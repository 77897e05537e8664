package dev.keel.inference;

import ai.djl.pytorch.jni.JniUtils;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A worker's scoring lanes: long-lived threads, each holding its own loaded model, that score the
 * batches of every partition the worker reads, in the order the partitions were queued, whichever
 * lane is free taking the next batch.
 *
 * <p>Why lanes: on a CPU the CNN's layers are too small for libtorch to keep two intra-op threads
 * busy, so {@code t} one-thread models scoring different batches at once beat one {@code t}-thread
 * model (benchmarks/README.md). Why one queue for all partitions: with a partition's slices fixed
 * per lane, the lane that finished first idled until the slowest one was done and the next
 * partition started. Why long-lived threads: libtorch keeps per-thread native state (the calling
 * thread's OpenMP team and intra-op thread count), and Temporal runs activities on executor threads
 * it creates and retires as it likes.
 *
 * <p>Every batch starts at a multiple of {@link CheckpointPredictor#DEFAULT_BATCH} rows from its
 * partition's first row and is scored by a model with the lanes' thread count, so each row gets the
 * score the one-model loop over the partition gives it, bit for bit.
 */
final class ScoringLanes implements AutoCloseable {
  /** Opens a lane's model; called on the lane's thread. */
  interface Opener {
    CheckpointPredictor open() throws IOException;
  }

  private static final AtomicInteger STARTED = new AtomicInteger();

  private final int threadsPerLane;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final ArrayDeque<Batch> queue = new ArrayDeque<>();
  private final List<Lane> lanes = new ArrayList<>();
  private boolean closed;

  /**
   * @param lanes threads, each with a model of its own
   * @param threadsPerLane libtorch intra-op threads of each lane's model; 0 keeps the process
   *     setting
   */
  ScoringLanes(int lanes, int threadsPerLane) {
    if (lanes < 1) {
      throw new IllegalArgumentException("lanes must be >= 1, got " + lanes);
    }
    this.threadsPerLane = threadsPerLane;
    for (int i = 0; i < lanes; i++) {
      Lane lane = new Lane();
      Thread t = new Thread(lane, "keel-scoring-" + STARTED.incrementAndGet());
      t.setDaemon(true);
      this.lanes.add(lane);
      t.start();
    }
  }

  int lanes() {
    return lanes.size();
  }

  int threadsPerLane() {
    return threadsPerLane;
  }

  /** Scoring threads started in this JVM so far (tests). */
  static int started() {
    return STARTED.get();
  }

  /**
   * Has every lane without a model of {@code key} load one now, before a partition's rows are read,
   * so that loading and reading overlap. Lanes busy scoring load it when they are done.
   */
  void prepare(String key, Opener opener) {
    lock.lock();
    try {
      for (Lane lane : lanes) {
        if (!key.equals(lane.key)) {
          lane.wanted = new Model(key, opener);
        }
      }
      work.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues {@code rows} as batches behind the partitions queued before. The future completes with
   * the predictions in row order, or with the first failure of a batch (an exception of {@link
   * CheckpointPredictor#open} or {@link CheckpointPredictor#requireFits}, say); the other batches
   * of a failed partition are not scored.
   *
   * @param table the rows' table as messages name it
   */
  CompletableFuture<Predictions> score(
      String key, Opener opener, String table, LabeledExamples rows) {
    int batch = CheckpointPredictor.DEFAULT_BATCH;
    int n = rows.size();
    int batches = Math.max(1, (n + batch - 1) / batch);
    Partition partition = new Partition(batches);
    Model model = new Model(key, opener);
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("scoring lanes closed");
      }
      for (int b = 0; b < batches; b++) {
        int from = b * batch;
        queue.add(new Batch(partition, b, model, table, rows, from, Math.min(n, from + batch)));
      }
      work.signalAll();
    } finally {
      lock.unlock();
    }
    return partition.done;
  }

  /**
   * The lanes finish the batches queued so far, close their models and end; nothing may be queued
   * after.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      work.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private record Model(String key, Opener opener) {}

  private record Batch(
      Partition partition,
      int index,
      Model model,
      String table,
      LabeledExamples rows,
      int from,
      int to) {}

  /** One partition's batches in flight. */
  private static final class Partition {
    final Predictions[] parts;
    final AtomicInteger remaining;
    final CompletableFuture<Predictions> done = new CompletableFuture<>();
    volatile Throwable failure;

    Partition(int batches) {
      parts = new Predictions[batches];
      remaining = new AtomicInteger(batches);
    }

    void scored(int index, Predictions p) {
      parts[index] = p;
      finishOne();
    }

    void failed(Throwable t) {
      if (failure == null) {
        failure = t;
      }
      finishOne();
    }

    private void finishOne() {
      if (remaining.decrementAndGet() > 0) {
        return;
      }
      if (failure != null) {
        done.completeExceptionally(failure);
      } else {
        done.complete(Predictions.concatenate(Arrays.asList(parts)));
      }
    }
  }

  private final class Lane implements Runnable {
    /** The checkpoint of {@link #model}; guarded by the lock for reading from other threads. */
    volatile String key;

    CheckpointPredictor model;

    /** A model {@link #prepare} asked this lane to load; guarded by the lock. */
    Model wanted;

    @Override
    public void run() {
      while (true) {
        Model load = null;
        Batch batch = null;
        lock.lock();
        try {
          while (wanted == null && queue.isEmpty() && !closed) {
            work.awaitUninterruptibly();
          }
          if (closed && queue.isEmpty()) {
            if (model != null) {
              model.close();
            }
            return;
          }
          if (wanted != null) {
            load = wanted;
            wanted = null;
          } else {
            batch = queue.poll();
          }
        } finally {
          lock.unlock();
        }
        if (load != null) {
          try {
            ensure(load);
          } catch (Throwable e) {
            // reported by the batch that needs the model, which tries again
          }
        } else {
          score(batch);
        }
      }
    }

    private void score(Batch b) {
      if (b.partition().failure != null) {
        b.partition().failed(b.partition().failure);
        return;
      }
      try {
        ensure(b.model());
        LabeledExamples rows = b.rows().slice(b.from(), b.to());
        model.requireFits(b.table(), rows);
        b.partition().scored(b.index(), model.predict(rows));
      } catch (Throwable e) {
        // the lane lives on: a partition waiting on it must hear of the failure, and the next ones
        // be scored
        b.partition().failed(e);
      }
    }

    private void ensure(Model wanted) throws IOException {
      if (wanted.key().equals(key)) {
        return;
      }
      if (model != null) {
        model.close();
        model = null;
        key = null;
      }
      // libtorch keeps the intra-op thread count per calling thread: set it on this one
      if (threadsPerLane > 0 && JniUtils.getNumThreads() != threadsPerLane) {
        JniUtils.setNumThreads(threadsPerLane);
      }
      model = wanted.opener().open();
      key = wanted.key();
    }
  }
}
