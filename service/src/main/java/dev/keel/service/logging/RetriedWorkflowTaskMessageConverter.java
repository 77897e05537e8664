package dev.keel.service.logging;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback's message conversion ({@code %kmsg} in {@code logback.xml}), except for a workflow task
 * failure that Temporal retries by itself ({@link
 * UserErrorThrowableConverter#retriedWorkflowTask}): its warning and the failure's first sentence
 * go on one line, without the stack and thread dumps the SDK attaches (75 lines for one slow first
 * task on a busy machine, which then ran fine). {@code KEEL_DEBUG=1} prints them.
 */
public final class RetriedWorkflowTaskMessageConverter extends MessageConverter {
  private final boolean debug;

  public RetriedWorkflowTaskMessageConverter() {
    this(System.getenv("KEEL_DEBUG") != null);
  }

  RetriedWorkflowTaskMessageConverter(boolean debug) {
    this.debug = debug;
  }

  @Override
  public String convert(ILoggingEvent event) {
    String message = super.convert(event);
    String retried =
        debug || event.getThrowableProxy() == null
            ? null
            : UserErrorThrowableConverter.retriedWorkflowTask(event.getThrowableProxy());
    return retried == null
        ? message
        : message + " " + retried + " (Temporal retries the task; stack trace with KEEL_DEBUG=1)";
  }
}
