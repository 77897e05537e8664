package dev.keel.gpu.model;

/** A request or configuration field that cannot be used; the message starts with the field path. */
public class InvalidFieldException extends IllegalArgumentException {
  private final String field;

  public InvalidFieldException(String field, String problem) {
    super(field + ": " + problem);
    this.field = field;
  }

  public InvalidFieldException(String field, String problem, Throwable cause) {
    super(field + ": " + problem, cause);
    this.field = field;
  }

  /** The path of the offending field, e.g. {@code hyperparameters.lr}. */
  public String field() {
    return field;
  }
}
