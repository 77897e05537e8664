package dev.keel.gpu.train;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The one thread of this JVM that trains. libtorch keeps per-thread native state (the OpenMP team
 * of the calling thread, kernel caches) that takes about a second of a one-epoch run to warm up;
 * Temporal runs each activity on a fresh pool thread, so training there paid it every time.
 * Training on one long-lived thread pays it once per worker process, and serializes runs, which
 * libtorch's process-wide generator, thread count and gradient mode require anyway.
 */
final class TrainerThread {
  private static final ExecutorService THREAD =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "keel-trainer");
            t.setDaemon(true);
            return t;
          });

  private TrainerThread() {}

  /**
   * Runs {@code work} on the trainer thread (after any run queued before it) and waits for it. If
   * the calling thread is interrupted meanwhile, {@code onInterrupt} asks the work to stop and this
   * still waits, so the run closes its native resources before the caller moves on.
   */
  static <T> T call(Callable<T> work, Runnable onInterrupt) throws IOException {
    return ThreadWork.await(THREAD.submit(work), onInterrupt);
  }
}
