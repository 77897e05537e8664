package dev.keel.service.cli;

import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * One clear message instead of a stack trace; {@code KEEL_DEBUG=1} shows the trace too. Bad input
 * (including every config problem, one per line) exits 2, a failed pipeline 1.
 */
final class FriendlyErrors implements IExecutionExceptionHandler {
  static final int INVALID_INPUT = 2;
  static final int FAILED = 1;

  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
    if (System.getenv("KEEL_DEBUG") != null) {
      e.printStackTrace(cmd.getErr());
    }
    if (e instanceof IllegalArgumentException) {
      cmd.getErr().println("keel: " + e.getMessage());
      return INVALID_INPUT;
    }
    if (e instanceof WorkflowFailedException wf) {
      cmd.getErr().println("keel: pipeline " + wf.getExecution().getWorkflowId() + " failed: " + rootMessage(wf));
      return FAILED;
    }
    cmd.getErr().println("keel: " + rootMessage(e) + " (KEEL_DEBUG=1 for details)");
    return FAILED;
  }

  static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    // ApplicationFailure.getMessage() is "message='…', type='…', nonRetryable=…"
    String m = c instanceof ApplicationFailure af ? af.getOriginalMessage() : c.getMessage();
    return m == null ? c.getClass().getSimpleName() : m;
  }
}
