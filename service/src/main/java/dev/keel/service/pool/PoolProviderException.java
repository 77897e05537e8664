package dev.keel.service.pool;

/**
 * The cloud or tofu did not do what a pool actuator asked. The message is the provider's reason;
 * {@link #retryable()} says whether asking again could help (throttling, a 5xx, a network error) or
 * not (a refused request, a missing group, a failed apply).
 */
public final class PoolProviderException extends RuntimeException {
  private final boolean retryable;

  public PoolProviderException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }
}
