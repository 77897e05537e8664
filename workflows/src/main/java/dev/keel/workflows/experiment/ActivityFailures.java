package dev.keel.workflows.experiment;

import io.temporal.failure.ApplicationFailure;

/** What the experiment and its trials tell the user about a failed activity. */
public final class ActivityFailures {
  private ActivityFailures() {}

  /**
   * The innermost cause's message; for an application failure its own message, without Temporal's
   * wrapping.
   */
  public static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof ApplicationFailure a ? a.getOriginalMessage() : c.getMessage();
  }
}
