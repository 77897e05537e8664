package dev.keel.service.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import dev.keel.activities.KeelFailure;
import dev.keel.workflows.experiment.ActivityFailures;
import io.temporal.common.converter.DataConverterException;
import io.temporal.failure.ApplicationFailure;

/**
 * Logback's stack-trace conversion ({@code %kex} in {@code logback.xml}), except for failures the
 * user caused: a non-retryable {@link ApplicationFailure} anywhere in the cause chain (bad input, a
 * missing table, a corrupt checkpoint — Keel raises those as non-retryable because retrying cannot
 * help) or an input the data converter could not decode prints as one indented line with its type
 * and message. A workflow task failure Temporal retries by itself ({@link #retriedWorkflowTask})
 * prints nothing here: {@link RetriedWorkflowTaskMessageConverter} appends it to the warning's
 * line. {@code KEEL_DEBUG=1} prints every trace.
 */
public final class UserErrorThrowableConverter extends ThrowableProxyConverter {
  static final String POTENTIAL_DEADLOCK = "io.temporal.internal.sync.PotentialDeadlockException";

  private final boolean debug;

  public UserErrorThrowableConverter() {
    this(System.getenv("KEEL_DEBUG") != null);
  }

  UserErrorThrowableConverter(boolean debug) {
    this.debug = debug;
  }

  @Override
  protected String throwableProxyToString(IThrowableProxy proxy) {
    if (!debug && retriedWorkflowTask(proxy) != null) {
      return ""; // RetriedWorkflowTaskMessageConverter puts it on the warning's own line
    }
    String userError = debug ? null : userError(proxy);
    if (userError == null) {
      return super.throwableProxyToString(proxy);
    }
    return "    " + userError + " (stack trace with KEEL_DEBUG=1)" + System.lineSeparator();
  }

  /**
   * {@code type: message} of the first failure in the chain that the user caused, or null: a
   * non-retryable application failure, or an input the data converter could not decode.
   */
  static String userError(IThrowableProxy proxy) {
    if (!(proxy instanceof ThrowableProxy p)) {
      return null;
    }
    for (Throwable t = p.getThrowable(); t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ApplicationFailure a && a.isNonRetryable()) {
        return a.getType() + ": " + a.getOriginalMessage();
      }
      if (t instanceof KeelFailure k && !k.retryable()) {
        return k.type() + ": " + k.getMessage();
      }
      if (t instanceof DataConverterException) {
        return "undecodable input: " + ActivityFailures.rootMessage(t);
      }
    }
    return null;
  }

  /**
   * {@code type: message} of a workflow task failure that Temporal retries by itself and that no
   * code fixes, or null. Today one: the SDK's deadlock detector ({@code
   * PotentialDeadlockException}, TMPRL1101) fails a task whose workflow thread did not yield within
   * its window, which a busy machine can cause; the retry runs on. Its message holds thread dumps:
   * only its first sentence is kept. The class is matched by name: Keel code uses no {@code
   * io.temporal.internal} class.
   */
  static String retriedWorkflowTask(IThrowableProxy proxy) {
    for (IThrowableProxy t = proxy; t != null; t = t.getCause()) {
      if (POTENTIAL_DEADLOCK.equals(t.getClassName())) {
        String message = String.valueOf(t.getMessage());
        int end = message.indexOf(" {detectionTimestamp");
        String first =
            (end < 0 ? message : message.substring(0, end)).lines().findFirst().orElse("").strip();
        return POTENTIAL_DEADLOCK.substring(POTENTIAL_DEADLOCK.lastIndexOf('.') + 1) + ": " + first;
      }
    }
    return null;
  }
}
