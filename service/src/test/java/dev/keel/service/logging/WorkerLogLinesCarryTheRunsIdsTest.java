package dev.keel.service.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * A line an activity logs for a trial carries the trial's experiment and trial ids (and Temporal's
 * WorkflowId) in the logging context, the text format shows them in brackets, and {@code
 * KEEL_LOG_FORMAT=json}'s configuration writes them as JSON fields; the ids are gone once the
 * activity returns.
 */
class WorkerLogLinesCarryTheRunsIdsTest {
  @ActivityInterface
  public interface Say {
    void say(String text);
  }

  /** Stands for any Keel workflow named like a trial: only its type and id matter here. */
  @WorkflowInterface
  public interface Trial {
    @WorkflowMethod(name = "Trial")
    void run();
  }

  public static class TrialImpl implements Trial {
    @Override
    public void run() {
      Workflow.newActivityStub(
              Say.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build())
          .say("step done");
    }
  }

  @Test
  void activityLinesOfATrialCarryItsExperimentAndTrialIds() {
    Logger logger = (Logger) LoggerFactory.getLogger("dev.keel.test.say");
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    logger.setLevel(ch.qos.logback.classic.Level.INFO);
    try (TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder()
                        .setWorkerInterceptors(new LogContext())
                        .build())
                .build())) {
      Worker worker = env.newWorker("q");
      worker.registerWorkflowImplementationTypes(TrialImpl.class);
      worker.registerActivitiesImplementations((Say) text -> logger.info(text));
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      client
          .newWorkflowStub(
              Trial.class,
              WorkflowOptions.newBuilder()
                  .setTaskQueue("q")
                  .setWorkflowId("experiment-mnist-20261125/trial-3")
                  .build())
          .run();
    } finally {
      logger.detachAppender(events);
    }
    assertEquals(1, events.list.size());
    Map<String, String> mdc = events.list.get(0).getMDCPropertyMap();
    assertEquals("experiment-mnist-20261125", mdc.get(LogContext.EXPERIMENT_ID));
    assertEquals("3", mdc.get(LogContext.TRIAL_ID));
    assertEquals("experiment_id=experiment-mnist-20261125 trial_id=3", mdc.get(LogContext.IDS));
    assertEquals("experiment-mnist-20261125/trial-3", mdc.get("WorkflowId"));
    assertEquals(null, MDC.get(LogContext.TRIAL_ID), "not left on this thread");
  }

  @Test
  void idsOfEachKindOfRun() {
    assertEquals(
        Map.of(LogContext.EXPERIMENT_ID, "experiment-a-1"),
        LogContext.ids("Experiment", "experiment-a-1"));
    assertEquals(
        Map.of(LogContext.PIPELINE_ID, "pipeline-x"), LogContext.ids("Pipeline", "pipeline-x"));
    assertEquals(
        Map.of(LogContext.PIPELINE_ID, "pipeline-x"),
        LogContext.ids("Inference", "pipeline-x/inference"));
    assertEquals(Map.of(), LogContext.ids("Inference", "scoring-run"));
  }

  @Test
  void textFormatShowsTheIdsInBracketsAndJsonFormatAsFields() throws Exception {
    MDC.put(LogContext.EXPERIMENT_ID, "e-1");
    MDC.put(LogContext.TRIAL_ID, "2");
    MDC.put(LogContext.IDS, "experiment_id=e-1 trial_id=2");
    try {
      String text = logOnce("logback.xml");
      assertTrue(text.contains(" - [experiment_id=e-1 trial_id=2] validated\n"), text);
      JsonNode json =
          new ObjectMapper()
              .readTree(logOnce("keel/logback-json.xml").lines().findFirst().orElseThrow());
      assertEquals("validated", json.get("message").asText(), json.toString());
      assertEquals("2", json.get("mdc").get("trial_id").asText(), json.toString());
      assertEquals("e-1", json.get("mdc").get("experiment_id").asText(), json.toString());
    } finally {
      MDC.clear();
    }
    String plain = logOnce("logback.xml");
    assertTrue(plain.contains(" - validated\n"), "no empty brackets without ids: " + plain);
  }

  /**
   * What one WARN line "validated" looks like on stderr under the configuration {@code resource}.
   */
  private static String logOnce(String resource) throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(
          WorkerLogLinesCarryTheRunsIdsTest.class.getClassLoader().getResource(resource));
      context
          .getMDCAdapter()
          .setContextMap(MDC.getCopyOfContextMap() == null ? Map.of() : MDC.getCopyOfContextMap());
      context.getLogger("dev.keel.test").warn("validated");
    } finally {
      context.stop();
      System.setErr(err);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }
}
