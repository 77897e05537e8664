package dev.keel.service.cli;

import dev.keel.workflows.experiment.ActivityFailures;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowNotFoundException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * One clear message instead of a stack trace or raw gRPC text; {@code KEEL_DEBUG=1} shows the trace
 * too. Bad input (including every config problem, one per line, an unknown id and a bad option)
 * exits 2, a failed pipeline or an unreachable Temporal 1. A usage error prints the command's usage
 * line and the error, not its whole help page.
 */
final class FriendlyErrors implements IExecutionExceptionHandler, IParameterExceptionHandler {
  static final int INVALID_INPUT = 2;
  static final int FAILED = 1;

  /** A failure whose message is meant for the user as it is; exits {@value #FAILED}. */
  static final class Failure extends RuntimeException {
    Failure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
    PrintWriter err = cmd.getErr();
    if (System.getenv("KEEL_DEBUG") != null) {
      e.printStackTrace(err);
    }
    if (e instanceof Failure) {
      err.println("keel: " + e.getMessage());
      return FAILED;
    }
    Optional<StatusRuntimeException> unreachable = status(e, Status.Code.UNAVAILABLE);
    if (unreachable.isPresent()) {
      err.println(
          "keel: cannot reach Temporal at "
              + contacted(cmd).orElse("the configured address")
              + " ("
              + reason(unreachable.get())
              + "): start one with keel dev, or name a Temporal frontend with --temporal"
              + " HOST:PORT or $TEMPORAL_ADDRESS");
      return FAILED;
    }
    if (e instanceof IllegalArgumentException) {
      err.println("keel: " + e.getMessage());
      return INVALID_INPUT;
    }
    if (e instanceof WorkflowNotFoundException nf) {
      err.println(
          "keel: no workflow "
              + nf.getExecution().getWorkflowId()
              + contacted(cmd).map(a -> " on Temporal " + a).orElse("")
              + " (it never ran there, or it has ended)");
      return INVALID_INPUT;
    }
    if (e instanceof WorkflowFailedException wf) {
      err.println(
          "keel: pipeline "
              + wf.getExecution().getWorkflowId()
              + " failed: "
              + ActivityFailures.rootMessage(wf));
      return FAILED;
    }
    err.println("keel: " + ActivityFailures.rootMessage(e) + " (KEEL_DEBUG=1 for details)");
    return FAILED;
  }

  /**
   * The usage line and the error, like {@code det}: the whole help page would bury the one line
   * that matters.
   */
  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    if (System.getenv("KEEL_DEBUG") != null) {
      e.printStackTrace(err);
    }
    CommandLine.Help help = cmd.getHelp();
    err.print(help.synopsisHeading() + help.synopsis(help.synopsisHeadingLength()));
    String name = cmd.getCommandSpec().qualifiedName();
    err.println("keel: " + e.getMessage() + " (" + name + " --help lists every option)");
    UnmatchedArgumentException.printSuggestions(e, err);
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** The Temporal address the failed command talked to, from its {@link StackOptions}. */
  private static Optional<String> contacted(CommandLine cmd) {
    for (CommandSpec mixin : cmd.getCommandSpec().mixins().values()) {
      if (mixin.userObject() instanceof StackOptions stack) {
        return stack.contacted();
      }
    }
    return Optional.empty();
  }

  private static Optional<StatusRuntimeException> status(Throwable t, Status.Code code) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof StatusRuntimeException s && s.getStatus().getCode() == code) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code connection refused}, not {@code UNAVAILABLE: io exception} nor netty's {@code
   * finishConnect(..) failed: …}.
   */
  private static String reason(StatusRuntimeException e) {
    String root = ActivityFailures.rootMessage(e);
    int failed = root.lastIndexOf("failed: ");
    String reason = failed >= 0 ? root.substring(failed + "failed: ".length()) : root;
    int colon = reason.indexOf(": ");
    return (colon > 0 ? reason.substring(0, colon) : reason).toLowerCase(Locale.ROOT);
  }
}
