package dev.keel.service.fault;

import dev.keel.api.config.SourceFormat;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TrainProgress;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A loopback Temporal test server, a storage root with Fashion-MNIST ingested as {@code
 * tables/fashion_mnist}, a client, optional in-process workers, and worker processes in child JVMs
 * ({@code keel worker}) that a test can kill with SIGKILL.
 */
final class FaultStack implements AutoCloseable {
  static final String TABLE = "fashion_mnist";

  final LoopbackTemporalServer server;
  final Path storage;
  final StorageRoot root;
  final WorkflowServiceStubs stubs;
  final WorkflowClient client;
  private final List<KeelWorkerHost> hosts = new ArrayList<>();
  private final List<ChildWorker> children = new ArrayList<>();
  private IngestResult ingested;

  private FaultStack(String name) throws IOException {
    storage =
        Files.createDirectories(Path.of(System.getProperty("keel.test.tmp", "target/test-tmp")))
            .resolve(name + "-" + UUID.randomUUID())
            .toAbsolutePath();
    Files.createDirectories(storage);
    root = StorageRoot.of(storage.toString());
    server = LoopbackTemporalServer.start(0);
    stubs = KeelWorkerHost.connect(server.address());
    client = KeelWorkerHost.client(stubs, "default");
  }

  static FaultStack start(String name) throws IOException {
    return new FaultStack(name);
  }

  /**
   * A stack with the data ingested and every role but TRAIN in this JVM: the tests start training
   * workers as child processes ({@link #child}) to kill them.
   */
  static FaultStack withControlInProcess(String name) throws IOException {
    FaultStack stack = start(name);
    stack.ingest();
    stack.inProcess(Set.of(Role.CONTROL, Role.ETL, Role.INFER), 1);
    return stack;
  }

  /** A stack with the data ingested and every worker role in this JVM (one training thread). */
  static FaultStack allInProcess(String name) throws IOException {
    FaultStack stack = start(name);
    stack.ingest();
    stack.inProcess(Set.of(Role.CONTROL, Role.ETL, Role.TRAIN, Role.INFER), 1);
    return stack;
  }

  /** Ingests the real Fashion-MNIST files into {@code tables/fashion_mnist} (once). */
  IngestResult ingest() {
    if (ingested == null) {
      ingested =
          new IngestActivitiesImpl(root)
              .ingest(
                  IngestRequest.newBuilder()
                      .setSource(
                          DataSource.newBuilder()
                              .setFormat(SourceFormat.FASHION_MNIST.proto())
                              .setUri(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR))
                      .setTableUri(TABLE)
                      .build());
    }
    return ingested;
  }

  /** Workers of {@code roles} in this JVM (dev-server mode: no sticky queue to strand). */
  KeelWorkerHost inProcess(Set<Role> roles, int trainThreads) {
    KeelWorkerHost host =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(root)
                .optRoles(roles)
                .optDevServer(true)
                .optTrainThreads(trainThreads)
                .build());
    hosts.add(host);
    return host;
  }

  void stop(KeelWorkerHost host) {
    hosts.remove(host);
    host.close();
  }

  /**
   * {@code keel worker --temporal … --storage … ARGS} in a new JVM; its stderr goes to {@code
   * <storage>/logs/<name>.log}.
   */
  ChildWorker child(String name, String... args) throws IOException {
    Path log = Files.createDirectories(storage.resolve("logs")).resolve(name + ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx768m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.keel.service.cli.KeelCli",
                "worker",
                "--temporal",
                server.address(),
                "--storage",
                storage.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    pb.environment().put("KEEL_LOG_LEVEL", "INFO");
    pb.environment().put("OMP_WAIT_POLICY", "passive");
    pb.environment().put("OMP_NUM_THREADS", "1");
    ChildWorker child = new ChildWorker(name, pb.start(), log);
    children.add(child);
    return child;
  }

  static ExperimentConfig config(String yaml) {
    return ExperimentConfigLoaders.experimentLoader().fromYaml(yaml);
  }

  String startExperiment(ExperimentConfig config, ExperimentRunOptions options) {
    return ExperimentLauncher.start(
        client, ExperimentRequest.newBuilder().setConfig(config).setOptions(options).build());
  }

  ExperimentResult result(String id, Duration timeout) throws Exception {
    return client
        .newUntypedWorkflowStub(id)
        .getResult(timeout.toMillis(), TimeUnit.MILLISECONDS, ExperimentResult.class);
  }

  DescribeWorkflowExecutionResponse describe(String workflowId) {
    return stubs
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace("default")
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                .build());
  }

  boolean running(String workflowId) {
    WorkflowExecutionStatus s = describe(workflowId).getWorkflowExecutionInfo().getStatus();
    return s == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }

  /**
   * Whether {@code activity} is running (started, not finished) in the workflow; false before the
   * workflow exists.
   */
  boolean runs(String workflowId, String activity) {
    DescribeWorkflowExecutionResponse d;
    try {
      d = describe(workflowId);
    } catch (StatusRuntimeException notYetStarted) {
      return false;
    }
    return d.getPendingActivitiesList().stream()
        .anyMatch(
            a ->
                a.getActivityType().getName().equals(activity)
                    && a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
  }

  List<HistoryEvent> history(String workflowId) {
    return client.fetchHistory(workflowId).getEvents();
  }

  /** How often each activity type was scheduled in the workflow. */
  Map<String, Integer> scheduled(String workflowId) {
    Map<String, Integer> out = new TreeMap<>();
    for (HistoryEvent e : history(workflowId)) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        out.merge(
            e.getActivityTaskScheduledEventAttributes().getActivityType().getName(),
            1,
            Integer::sum);
      }
    }
    return out;
  }

  /**
   * The activities of the workflow whose completion came from a second or later attempt, by type:
   * the attempt.
   */
  Map<String, Integer> retried(String workflowId) {
    Map<Long, String> types = new TreeMap<>();
    Map<String, Integer> out = new TreeMap<>();
    for (HistoryEvent e : history(workflowId)) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        types.put(
            e.getEventId(),
            e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      }
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
          && e.getActivityTaskStartedEventAttributes().getAttempt() > 1) {
        out.merge(
            types.get(e.getActivityTaskStartedEventAttributes().getScheduledEventId()),
            e.getActivityTaskStartedEventAttributes().getAttempt(),
            Math::max);
      }
    }
    return out;
  }

  static Optional<TrainProgress> progress(PendingActivityInfo a) {
    if (!a.hasHeartbeatDetails() || a.getHeartbeatDetails().getPayloadsCount() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        KeelDataConverter.get()
            .fromPayloads(
                0, Optional.of(a.getHeartbeatDetails()), TrainProgress.class, TrainProgress.class));
  }

  /** Polls {@code condition} every 100 ms until it holds; fails after {@code timeout}. */
  static void await(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    Poll.until(what, timeout, condition);
  }

  static void deleteTree(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public void close() {
    children.forEach(ChildWorker::kill);
    hosts.forEach(KeelWorkerHost::close);
    stubs.shutdownNow();
    server.close();
  }

  /** A {@code keel worker} process. */
  static final class ChildWorker {
    final String name;
    final Process process;
    final Path log;

    ChildWorker(String name, Process process, Path log) {
      this.name = name;
      this.process = process;
      this.log = log;
    }

    /** Temporal's default worker identity of this process. */
    boolean isIdentity(String identity) {
      return identity.startsWith(process.pid() + "@");
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill() {
      process.destroyForcibly();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          throw new AssertionError("worker " + name + " survived SIGKILL");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    String logText() {
      try {
        return Files.exists(log) ? Files.readString(log) : "";
      } catch (IOException e) {
        return "";
      }
    }
  }
}
