package dev.keel.gpu.collective;

/**
 * A collective, store operation or native library load failed: a peer died or never joined, a
 * timeout expired, a port was taken, or the library is missing. The message is c10d's, prefixed
 * with the operation.
 */
public class CollectiveException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CollectiveException(String message) {
    super(message);
  }

  public CollectiveException(String message, Throwable cause) {
    super(message, cause);
  }
}
