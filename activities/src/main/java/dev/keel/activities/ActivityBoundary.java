package dev.keel.activities;

import io.temporal.failure.ApplicationFailure;
import java.util.function.Supplier;

/**
 * Where an activity implementation turns Keel's own failures into Temporal's: a {@link KeelFailure}
 * becomes an application failure of the same type, message and retryability, which the activity
 * options' retry policy and the workflows read. Everything else passes unchanged.
 */
public final class ActivityBoundary {
  private ActivityBoundary() {}

  /** Runs an activity's body, mapping the failures it raises. */
  public static <T> T call(Supplier<T> body) {
    try {
      return body.get();
    } catch (KeelFailure f) {
      throw toTemporal(f);
    }
  }

  /** As {@link #call(Supplier)} for a body without a result. */
  public static void run(Runnable body) {
    try {
      body.run();
    } catch (KeelFailure f) {
      throw toTemporal(f);
    }
  }

  /** The application failure Temporal carries for {@code f}. */
  public static ApplicationFailure toTemporal(KeelFailure f) {
    return ApplicationFailure.newBuilder()
        .setMessage(f.getMessage())
        .setType(f.type())
        .setNonRetryable(!f.retryable())
        .setCause(f.getCause())
        .build();
  }
}
