package dev.keel.service.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.google.protobuf.Message;
import com.google.protobuf.Value;
import dev.keel.activities.TaskQueues;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialRequest;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A control worker loads what Keel's workflow code needs before it polls ({@link WorkflowWarmUp}):
 * the workflow tasks of a run (a pipeline's first task, an experiment's first two, its trial's
 * first) load no class on a workflow thread, where Temporal's deadlock detection gives a task 1 s.
 * The worker runs in a class loader of its own, sharing no class with this test (as a fresh {@code
 * keel dev} or {@code keel worker} process), and the runs are started over gRPC with inputs this
 * test encoded, as the CLI or another process sends them. Without the warm-up a pipeline's first
 * task alone loaded some 360 classes on its workflow thread.
 */
class ControlWorkerWarmsUpWorkflowCodeBeforePollingTest {
  @Test
  void theFirstWorkflowTasksOfARunLoadNoClassOnAWorkflowThread() throws Exception {
    PipelineRequest pipeline = DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA));
    ExperimentConfig config =
        pipeline.getExperiment().toBuilder()
            .setData(DataSpec.newBuilder().setTable("file:///nonexistent/tables/fashion_mnist"))
            .build();
    Map<String, String> types = new LinkedHashMap<>();
    Map<String, byte[]> inputs = new LinkedHashMap<>();
    types.put("pipeline-warm", "Pipeline");
    inputs.put("pipeline-warm", encode(pipeline));
    types.put("trial-warm", "Trial");
    inputs.put(
        "trial-warm",
        encode(
            TrialRequest.newBuilder()
                .setExperimentId("experiment-warm")
                .setTrialId(7)
                .setConfig(config)
                .setData(TableRef.newBuilder().setUri("file:///nonexistent/tables/fashion_mnist"))
                .setTrainRows(1000)
                .putHparams("lr", Value.newBuilder().setNumberValue(0.002).build())
                .setTargetLength(Length.newBuilder().setBatches(100))
                .build()));
    // without the catalog: its first task starts its trial at once (no table to describe)
    types.put("experiment-warm", "Experiment");
    inputs.put(
        "experiment-warm",
        encode(
            ExperimentRequest.newBuilder()
                .setConfig(config)
                .setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true))
                .build()));

    Path storage =
        Files.createDirectories(Path.of(System.getProperty("keel.test.tmp", "target/test-tmp")))
            .resolve("warm-up-" + UUID.randomUUID());
    // not closed: the server's and the stubs' threads wind down after the run and still load
    // classes
    RecordingLoader loader = new RecordingLoader();
    Object reached =
        loader
            .loadClass(FreshControlWorker.class.getName())
            .getMethod("run", Map.class, Map.class, String.class, Runnable.class)
            .invoke(null, types, inputs, storage.toString(), (Runnable) loader::startRecording);
    assertEquals("every run's workflow tasks completed, and its activity waits", reached);
    Map<String, String> onWorkflowThreads =
        loader.loaded().entrySet().stream()
            .filter(e -> e.getValue().startsWith("workflow-"))
            .collect(
                Collectors.toMap(
                    Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    assertFalse(loader.loaded().isEmpty(), "the recording saw nothing at all");
    assertEquals(Map.of(), onWorkflowThreads, "classes a workflow thread loaded (class=thread)");
  }

  private static byte[] encode(Message input) {
    return KeelDataConverter.get().toPayloads(input).orElseThrow().toByteArray();
  }

  /**
   * Runs in the {@link RecordingLoader}: a loopback dev server and a control worker host; then,
   * once the host has started (it polls), each run is started and waited for until its activity is
   * scheduled.
   */
  public static final class FreshControlWorker {
    private FreshControlWorker() {}

    public static String run(
        Map<String, String> types,
        Map<String, byte[]> inputs,
        String storage,
        Runnable startRecording)
        throws Exception {
      try (LoopbackTemporalServer server = LoopbackTemporalServer.start(0);
          KeelWorkerHost host =
              KeelWorkerHost.start(
                  WorkerHostOptions.newBuilder()
                      .setTemporalAddress(server.address())
                      .setStorageRoot(StorageRoot.of(storage))
                      .optRoles(Set.of(Role.CONTROL))
                      .optDevServer(true)
                      .build())) {
        startRecording.run();
        WorkflowServiceStubs stubs = host.stubs();
        for (Map.Entry<String, String> run : types.entrySet()) {
          stubs
              .blockingStub()
              .startWorkflowExecution(
                  StartWorkflowExecutionRequest.newBuilder()
                      .setNamespace("default")
                      .setWorkflowId(run.getKey())
                      .setRequestId(UUID.randomUUID().toString())
                      .setWorkflowType(WorkflowType.newBuilder().setName(run.getValue()))
                      .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.CONTROL))
                      .setInput(Payloads.parseFrom(inputs.get(run.getKey())))
                      .build());
        }
        // the experiment schedules no activity of its own: its trial does, and the experiment's
        // second task sees it start
        for (String id : List.of("pipeline-warm", "trial-warm", "experiment-warm/trial-1")) {
          Poll.until(
              id + " to schedule its activity",
              Duration.ofSeconds(60),
              () -> activityScheduled(stubs, id));
        }
        Poll.until(
            "the experiment to see its trial start",
            Duration.ofSeconds(60),
            () -> completedTasks(stubs, "experiment-warm") >= 2);
        return "every run's workflow tasks completed, and its activity waits";
      }
    }

    private static boolean activityScheduled(WorkflowServiceStubs stubs, String id) {
      try {
        return stubs
            .blockingStub()
            .describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder()
                    .setNamespace("default")
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                    .build())
            .getPendingActivitiesList()
            .stream()
            .anyMatch(a -> a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED);
      } catch (StatusRuntimeException notYetStarted) {
        return false;
      }
    }

    private static long completedTasks(WorkflowServiceStubs stubs, String id) {
      return stubs
          .blockingStub()
          .getWorkflowExecutionHistory(
              GetWorkflowExecutionHistoryRequest.newBuilder()
                  .setNamespace("default")
                  .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                  .build())
          .getHistory()
          .getEventsList()
          .stream()
          .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
          .count();
    }
  }

  /**
   * This test's class path in a loader of its own (whose parent knows only the JDK), which records
   * the name of the thread that loads each class once recording has started.
   */
  private static final class RecordingLoader extends URLClassLoader {
    private final Map<String, String> loaded = new ConcurrentHashMap<>();
    private volatile boolean recording;

    RecordingLoader() throws Exception {
      super(classPath(), ClassLoader.getPlatformClassLoader());
    }

    private static URL[] classPath() throws Exception {
      List<URL> urls = new ArrayList<>();
      for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
        urls.add(Path.of(entry).toUri().toURL());
      }
      return urls.toArray(new URL[0]);
    }

    void startRecording() {
      recording = true;
    }

    Map<String, String> loaded() {
      return loaded;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      Class<?> c = super.findClass(name);
      if (recording) {
        loaded.put(name, Thread.currentThread().getName());
      }
      return c;
    }
  }
}
