package dev.keel.gpu.train;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waiting for work handed to a long-lived libtorch thread (the trainer's, a scoring thread). The
 * wait outlasts an interrupt of the caller, because the work holds native resources it must close
 * first; the caller's interrupt flag is set again once it is done.
 */
public final class ThreadWork {
  private ThreadWork() {}

  /**
   * The work's result, or its own exception ({@link IOException}, unchecked exceptions and errors
   * as they are; anything else wrapped in an {@link IOException}).
   *
   * @param onInterrupt run at each interrupt of the caller, e.g. to ask the work to stop
   */
  public static <T> T await(Future<T> result, Runnable onInterrupt) throws IOException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return result.get();
        } catch (InterruptedException e) {
          interrupted = true;
          onInterrupt.run();
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new IOException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
