package dev.keel.service.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.read.ListAppender;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's first workflow task that keeps its workflow thread busy past Temporal's deadlock
 * detection (as class loading did on a busy machine) fails once with TMPRL1101 and is retried by
 * Temporal; under the shipped {@code logback.xml} (what {@code keel dev} and {@code keel worker}
 * print) that is one warning line with the failure's first sentence, not the SDK's stack and thread
 * dumps.
 */
class SlowFirstWorkflowTaskLogsOneLineNotAStackTest {
  /** Short, so the test need not be slow; the workflow's first task overruns it. */
  private static final long DEADLOCK_DETECTION_MILLIS = 500;

  private static final AtomicBoolean FIRST_ATTEMPT = new AtomicBoolean(true);

  /**
   * How the shipped pattern starts a line: {@code 10:42:07.123 WARN
   * i.t.i.r.ReplayWorkflowTaskHandler - }.
   */
  private static final Pattern LOG_LINE =
      Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO |WARN |ERROR) \\S+ - ");

  @WorkflowInterface
  public interface SlowStart {
    @WorkflowMethod
    String run();
  }

  public static class SlowStartImpl implements SlowStart {
    @Override
    public String run() {
      if (FIRST_ATTEMPT.getAndSet(false)) {
        // stands for a workflow thread loading classes on a busy machine: it does not yield in time
        long until = System.nanoTime() + Duration.ofMillis(5 * DEADLOCK_DETECTION_MILLIS).toNanos();
        while (System.nanoTime() < until) {
          Thread.onSpinWait();
        }
      }
      return "done";
    }
  }

  @Test
  void theRetriedTaskIsOneWarningLineWithTheFailuresFirstSentence() throws Exception {
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    String out =
        underShippedLogback(
            events,
            () -> {
              try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
                Worker worker =
                    env.newWorker(
                        "slow-start",
                        WorkerOptions.newBuilder()
                            .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MILLIS)
                            .build());
                worker.registerWorkflowImplementationTypes(SlowStartImpl.class);
                env.start();
                String result =
                    env.getWorkflowClient()
                        .newWorkflowStub(
                            SlowStart.class,
                            WorkflowOptions.newBuilder()
                                .setTaskQueue("slow-start")
                                .setWorkflowId("slow-start")
                                .build())
                        .run();
                assertEquals("done", result, "the retried task ran the workflow to its end");
              }
            });
    assertFalse(FIRST_ATTEMPT.get(), "the workflow ran");
    List<String> lines = out.lines().toList();
    // one failed task per line (a busy machine may stall the retry too: then that is a line of its
    // own)
    List<String> failures = lines.stream().filter(l -> l.contains("TMPRL1101")).toList();
    assertFalse(failures.isEmpty(), out);
    for (String line : failures) {
      assertTrue(line.contains(" WARN  "), line);
      assertTrue(line.contains("Workflow task processing failure"), line);
      assertTrue(
          line.contains(
              "PotentialDeadlockException: [TMPRL1101] Potential deadlock detected. Workflow thread"),
          line);
      assertTrue(line.endsWith("(Temporal retries the task; stack trace with KEEL_DEBUG=1)"), line);
      assertFalse(line.contains("detectionTimestamp"), "no thread dump: " + line);
    }
    // every line printed is a log line of its own: no stack frames, causes or thread dumps under
    // one
    assertTrue(
        lines.stream().allMatch(l -> LOG_LINE.matcher(l).lookingAt()),
        "more than log lines:\n" + out);

    // KEEL_DEBUG=1: the same event keeps the SDK's message and its whole stack
    ILoggingEvent event =
        events.list.stream().filter(e -> e.getThrowableProxy() != null).findFirst().orElseThrow();
    LoggerContext context = new LoggerContext();
    RetriedWorkflowTaskMessageConverter message = new RetriedWorkflowTaskMessageConverter(true);
    UserErrorThrowableConverter stack = new UserErrorThrowableConverter(true);
    message.setContext(context);
    stack.setContext(context);
    message.start();
    stack.start();
    assertEquals(event.getFormattedMessage(), message.convert(event));
    String trace = stack.convert(event);
    assertTrue(trace.contains("PotentialDeadlockException") && trace.contains("\tat "), trace);
  }

  /**
   * What {@code body} prints (and, in {@code events}, logs) through the process-wide logging
   * context configured from the shipped logback.xml.
   */
  private static String underShippedLogback(
      ListAppender<ILoggingEvent> events, ThrowingRunnable body) throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    PrintStream stderr = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      context.reset();
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(UserErrorThrowableConverter.class.getResource("/logback.xml"));
      events.setContext(context);
      events.start();
      context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(events);
      body.run();
    } finally {
      context.reset();
      System.setErr(stderr);
      new ContextInitializer(context)
          .autoConfig(); // back to logback-test.xml for the tests after this one
    }
    return err.toString(StandardCharsets.UTF_8);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
