package dev.keel.gpu.model;

/** A request or configuration field that cannot be used; the message starts with the field path. */
public class InvalidFieldException extends IllegalArgumentException {
  private final String field;
  private final String problem;

  public InvalidFieldException(String field, String problem) {
    super(field + ": " + problem);
    this.field = field;
    this.problem = problem;
  }

  public InvalidFieldException(String field, String problem, Throwable cause) {
    super(field + ": " + problem, cause);
    this.field = field;
    this.problem = problem;
  }

  /** What is wrong with the field, without its path. */
  public String problem() {
    return problem;
  }

  /** The path of the offending field, e.g. {@code hyperparameters.lr}. */
  public String field() {
    return field;
  }
}
