package dev.keel.tables.registry;

/**
 * A model name or version, stage or registration the registry refuses; the message says which and
 * why.
 */
public final class UnknownModelException extends IllegalArgumentException {
  public UnknownModelException(String message) {
    super(message);
  }
}
