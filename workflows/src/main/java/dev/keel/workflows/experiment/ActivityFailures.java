package dev.keel.workflows.experiment;

import io.temporal.failure.ApplicationFailure;

/**
 * What Keel tells the user about a failure: the experiment, its trials, the pipeline, inference,
 * pools, and the CLI and server logs.
 */
public final class ActivityFailures {
  private ActivityFailures() {}

  /**
   * The innermost cause's message; for an application failure its own message, without Temporal's
   * wrapping ({@code message='…', type='…', nonRetryable=…}); the cause's simple class name when it
   * has no message.
   */
  public static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    String m = c instanceof ApplicationFailure a ? a.getOriginalMessage() : c.getMessage();
    return m == null ? c.getClass().getSimpleName() : m;
  }
}
