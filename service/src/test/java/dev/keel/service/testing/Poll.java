package dev.keel.service.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting on a condition that real workers, a real server or a process make true, for tests: the
 * one place their polling sleeps, so each test says what it waits for and how long, not how.
 */
public final class Poll {
  private static final long INTERVAL_MILLIS = 100;

  private Poll() {}

  /**
   * Reads {@code value} until {@code done} holds for it and returns that reading; fails after
   * {@code timeout}, showing the last one.
   */
  public static <T> T until(String what, Duration timeout, Supplier<T> value, Predicate<T> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = value.get();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after " + timeout + " waiting for " + what + "; last seen: " + last);
      }
      Thread.sleep(INTERVAL_MILLIS);
      last = value.get();
    }
    return last;
  }

  /** Until {@code condition} holds; fails after {@code timeout}. */
  public static void until(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    until(what, timeout, condition::getAsBoolean, Boolean::booleanValue);
  }
}
