package dev.keel.service.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import io.temporal.common.converter.DataConverterException;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code keel dev}/{@code keel worker} print under a WARN line that carries an exception: one
 * line for a failure the user caused (a non-retryable application failure anywhere in the chain, an
 * undecodable input), the whole trace for anything else or with {@code KEEL_DEBUG=1}.
 */
class UserErrorsLogOneLineOtherFailuresTheirStackTest {
  private static String render(Throwable t, boolean debug) {
    LoggerContext context = new LoggerContext();
    UserErrorThrowableConverter converter = new UserErrorThrowableConverter(debug);
    converter.setContext(context);
    converter.start();
    LoggingEvent event =
        new LoggingEvent(
            UserErrorsLogOneLineOtherFailuresTheirStackTest.class.getName(),
            context.getLogger("test"),
            Level.WARN,
            "Activity failure",
            t,
            null);
    return converter.convert(event);
  }

  private static String render(Throwable t) {
    return render(t, false);
  }

  @Test
  void aNonRetryableFailureDeepInTheChainIsOneLineWithItsTypeAndMessage() {
    Throwable failure =
        new RuntimeException(
            "activity task failed",
            ApplicationFailure.newNonRetryableFailure(
                "table tables/shoes has no version 7 (latest: 2)", "InvalidTable"));
    String out = render(failure);
    assertEquals(1, out.strip().lines().count(), out);
    assertTrue(out.contains("InvalidTable: table tables/shoes has no version 7 (latest: 2)"), out);
    assertTrue(out.contains("KEEL_DEBUG=1"), out);
  }

  @Test
  void anUndecodableInputIsOneLineWithTheDecodersMessage() {
    Throwable failure =
        new DataConverterException(
            "cannot decode",
            new IllegalArgumentException(
                "Cannot find field: max_trails in message keel.v1.SearcherConfig"));
    String out = render(failure);
    assertEquals(1, out.strip().lines().count(), out);
    assertTrue(out.contains("undecodable input: Cannot find field: max_trails"), out);
  }

  @Test
  void anUnexpectedOrRetryableFailureKeepsItsStackTrace() {
    String bug = render(new IllegalStateException("predictor closed twice"));
    assertTrue(bug.lines().count() > 3, bug);
    assertTrue(bug.contains("\tat dev.keel.service.logging."), bug);
    String retryable = render(ApplicationFailure.newFailure("S3 timed out", "StorageTimeout"));
    assertTrue(retryable.lines().count() > 3, retryable);
  }

  @Test
  void theShippedLogbackXmlLogsAUserErrorAsTheWarningAndOneLine() throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream stderr = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      ch.qos.logback.classic.joran.JoranConfigurator configurator =
          new ch.qos.logback.classic.joran.JoranConfigurator();
      configurator.setContext(context);
      // the main resource, not logback-test.xml: what `keel dev` and `keel worker` load
      configurator.doConfigure(UserErrorThrowableConverter.class.getResource("/logback.xml"));
      context
          .getLogger("io.temporal.internal.activity.ActivityTaskExecutors")
          .warn(
              "Activity failure. ActivityId=1",
              new RuntimeException(
                  ApplicationFailure.newNonRetryableFailure("no such table", "InvalidTable")));
      context.getLogger("dev.keel.x").warn("unexpected", new IllegalStateException("bug"));
    } finally {
      context.stop();
      System.setErr(stderr);
    }
    List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
    assertTrue(
        lines
            .get(0)
            .endsWith("WARN  i.t.i.a.ActivityTaskExecutors - Activity failure. ActivityId=1"),
        lines.toString());
    assertEquals("    InvalidTable: no such table (stack trace with KEEL_DEBUG=1)", lines.get(1));
    assertTrue(lines.get(2).endsWith("WARN  dev.keel.x - unexpected"), lines.toString());
    assertEquals("java.lang.IllegalStateException: bug", lines.get(3));
    assertTrue(lines.get(4).startsWith("\tat "), lines.toString());
  }

  @Test
  void keelDebugPrintsTheTraceOfUserErrorsToo() {
    String out =
        render(ApplicationFailure.newNonRetryableFailure("bad lr", "InvalidHyperparameter"), true);
    assertTrue(out.lines().count() > 3, out);
    assertTrue(out.contains("bad lr"), out);
  }
}
