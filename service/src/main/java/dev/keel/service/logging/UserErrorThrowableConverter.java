package dev.keel.service.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import io.temporal.common.converter.DataConverterException;
import io.temporal.failure.ApplicationFailure;

/**
 * Logback's stack-trace conversion ({@code %kex} in {@code logback.xml}), except for failures the user
 * caused: a non-retryable {@link ApplicationFailure} anywhere in the cause chain (bad input, a missing
 * table, a corrupt checkpoint — Keel raises those as non-retryable because retrying cannot help) or an
 * input the data converter could not decode prints as one indented line with its type and message. {@code KEEL_DEBUG=1} prints every trace.
 */
public final class UserErrorThrowableConverter extends ThrowableProxyConverter {
  private final boolean debug;

  public UserErrorThrowableConverter() {
    this(System.getenv("KEEL_DEBUG") != null);
  }

  UserErrorThrowableConverter(boolean debug) {
    this.debug = debug;
  }

  @Override
  protected String throwableProxyToString(IThrowableProxy proxy) {
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
      if (t instanceof DataConverterException) {
        return "undecodable input: " + rootMessage(t);
      }
    }
    return null;
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
  }
}
