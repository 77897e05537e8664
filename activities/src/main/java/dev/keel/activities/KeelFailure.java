package dev.keel.activities;

/**
 * A failure Keel's library code (readers, writers, the trainer, the ETL) raises with its type from
 * {@link FailureTypes} and whether retrying may help. It knows nothing of Temporal: the code that
 * throws it runs without a worker, and each activity implementation turns it into Temporal's
 * failure at its boundary ({@link ActivityBoundary}).
 */
public class KeelFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String type;
  private final boolean retryable;

  protected KeelFailure(String message, String type, boolean retryable, Throwable cause) {
    super(message, cause);
    this.type = type;
    this.retryable = retryable;
  }

  /** Bad input or an unusable resource: retrying the same request cannot help. */
  public static KeelFailure nonRetryable(String message, String type) {
    return new KeelFailure(message, type, false, null);
  }

  /** As {@link #nonRetryable(String, String)}, keeping what caused it. */
  public static KeelFailure nonRetryable(String message, String type, Throwable cause) {
    return new KeelFailure(message, type, false, cause);
  }

  /** A failure another attempt (or another worker) may not meet. */
  public static KeelFailure retryable(String message, String type) {
    return new KeelFailure(message, type, true, null);
  }

  /** As {@link #retryable(String, String)}, keeping what caused it. */
  public static KeelFailure retryable(String message, String type, Throwable cause) {
    return new KeelFailure(message, type, true, cause);
  }

  /** One of {@link FailureTypes}' names (or an exception's simple name for retryable ones). */
  public String type() {
    return type;
  }

  public boolean retryable() {
    return retryable;
  }
}
