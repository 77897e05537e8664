package dev.keel.benchmarks;

import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.TrainProgress;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.dev.TemporalCliServer;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Does a Train activity whose worker died get timed out by its heartbeat timeout? On the embedded
 * Java test server and on the Temporal CLI's dev server: one experiment (one long trial) trains on
 * a child JVM ({@code keel worker --roles TRAIN}) with a short heartbeat timeout; the probe watches
 * the trial's pending Train activity with {@code DescribeWorkflowExecution} through two faults:
 *
 * <ol>
 *   <li><b>worker SIGKILLed mid-activity</b>: the attempt must time out (attempt + 1) within about
 *       the heartbeat timeout, wait SCHEDULED while no worker polls, and resume on a new worker;
 *   <li><b>worker SIGKILLed, then the experiment killed</b> (the Train activity is cancelled, and a
 *       trial waits for its cancellation to complete, {@code WAIT_CANCELLATION_COMPLETED}): the
 *       cancel-requested attempt must still time out, so the trial and the experiment can end.
 * </ol>
 *
 * <pre>
 * HeartbeatTimeoutProbe [--backend embedded|cli|both] [--heartbeat-seconds 5] [--watch-seconds 60] [--storage DIR] [--data DIR]
 * </pre>
 */
public final class HeartbeatTimeoutProbe {
  private HeartbeatTimeoutProbe() {}

  public static void main(String[] args) throws Exception {
    String backend = "both";
    int heartbeat = 5;
    int watch = 60;
    Path storage = null;
    Path data = Path.of("/usr/share/datasets/fashion-mnist");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--backend" -> backend = args[++i];
        case "--heartbeat-seconds" -> heartbeat = Integer.parseInt(args[++i]);
        case "--watch-seconds" -> watch = Integer.parseInt(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--backend embedded|cli|both --heartbeat-seconds S --watch-seconds S --storage DIR --data DIR)");
      }
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-heartbeat-probe");
    }
    System.out.println("machine: " + Machine.describe());
    List<String> summary = new ArrayList<>();
    for (String b : backend.equals("both") ? List.of("embedded", "cli") : List.of(backend)) {
      summary.addAll(probe(b, heartbeat, watch, storage.toAbsolutePath().resolve(b), data));
    }
    System.out.println();
    summary.forEach(System.out::println);
    System.exit(0);
  }

  private static List<String> probe(
      String backend, int heartbeat, int watch, Path storage, Path data) throws Exception {
    Files.createDirectories(storage);
    StorageRoot root = StorageRoot.of(storage.toString());
    FashionData.ingest(root, data);
    boolean embedded = backend.equals("embedded");
    AutoCloseable server;
    String address;
    if (embedded) {
      LoopbackTemporalServer s = LoopbackTemporalServer.start(0);
      server = s;
      address = s.address();
    } else {
      Path binary =
          TemporalCliServer.locate()
              .orElseThrow(() -> new IllegalStateException("no temporal binary"));
      TemporalCliServer s =
          TemporalCliServer.start(
              binary,
              freePort(),
              freePort(),
              storage.resolve("temporal").resolve("dev.db"),
              Duration.ofSeconds(90));
      server = s;
      address = s.address();
    }
    System.out.println();
    System.out.println(
        "== " + backend + " (" + address + "), heartbeat timeout " + heartbeat + " s");
    List<String> out = new ArrayList<>();
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx768m",
            "-XX:+UseSerialGC",
            "-cp",
            WorkerProcesses.classpath(),
            "dev.keel.service.cli.KeelCli",
            "worker",
            "--roles",
            "TRAIN",
            "--train-threads",
            "1",
            "--temporal",
            address,
            "--storage",
            root.toString());
    Files.createDirectories(storage.resolve("logs"));
    SoakBenchmark.Child trainer =
        new SoakBenchmark.Child(
            "train", "TRAIN", command, storage.resolve("logs").resolve("train.log"));
    try (KeelWorkerHost control =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(address)
                .setStorageRoot(root)
                .optDevServer(embedded)
                .optRoles(EnumSet.of(Role.CONTROL))
                .build())) {
      WorkflowClient client = control.client();
      trainer.start();
      String id =
          ExperimentLauncher.start(
              client,
              ExperimentRequest.newBuilder()
                  .setConfig(
                      ExperimentConfigLoaders.experimentLoader()
                          .fromYaml(
                              """
              name: heartbeat-probe
              data: {table: fashion_mnist}
              hyperparameters: {lr: 0.002, batch_size: 32, width: 4, optimizer: adam}
              searcher: {name: single, metric: validation_loss, smaller_is_better: true, max_length: {batches: 100000}}
              min_checkpoint_period: {batches: 100}
              model: {name: fashion_cnn}
              """))
                  .setOptions(
                      ExperimentRunOptions.newBuilder().setHeartbeatTimeoutSeconds(heartbeat))
                  .build());
      System.out.println("experiment " + id);
      String trial =
          await(
              "the trial workflow",
              Duration.ofMinutes(3),
              () -> {
                DescribeWorkflowExecutionResponse d = describe(client, id);
                return d.getPendingChildrenCount() > 0
                    ? Optional.of(d.getPendingChildren(0).getWorkflowId())
                    : Optional.empty();
              });
      await(
          "Train heartbeating progress",
          Duration.ofMinutes(3),
          () -> train(client, trial).filter(a -> batches(a) > 0).map(a -> "ok"));

      // 1. worker SIGKILLed mid-activity
      PendingActivityInfo before = train(client, trial).orElseThrow();
      trainer.kill();
      Instant killed = Instant.now();
      System.out.printf(
          Locale.ROOT,
          "SIGKILL of the training worker at batch %d, attempt %d%n",
          batches(before),
          before.getAttempt());
      Seen retried = watch(client, trial, killed, watch, a -> a.getAttempt() > before.getAttempt());
      out.add(
          String.format(
              Locale.ROOT,
              "%s, worker killed mid-activity: %s",
              backend,
              retried
                  .last()
                  .filter(x -> retried.done())
                  .map(
                      a ->
                          String.format(
                              Locale.ROOT,
                              "timed out after %.0f s (attempt %d, state %s, last failure: %s)",
                              Duration.between(killed, Instant.now()).toMillis() / 1000.0,
                              a.getAttempt(),
                              a.getState().name().replace("PENDING_ACTIVITY_STATE_", ""),
                              a.getLastFailure().getMessage()))
                  .orElse("NOT timed out within " + watch + " s")));
      trainer.start();
      Seen resumed =
          watch(
              client,
              trial,
              Instant.now(),
              watch + 60,
              a -> a.getState().name().endsWith("STARTED") && batches(a) > batches(before));
      out.add(
          String.format(
              Locale.ROOT,
              "%s, new worker: %s",
              backend,
              resumed
                  .last()
                  .filter(x -> resumed.done())
                  .map(a -> "resumed, attempt " + a.getAttempt() + " at batch " + batches(a))
                  .orElse("did NOT resume")));

      // 2. worker SIGKILLed, then the experiment killed: the Train activity is cancel-requested
      // with no worker
      PendingActivityInfo running = train(client, trial).orElseThrow();
      trainer.kill();
      Instant killed2 = Instant.now();
      ExperimentLauncher.stub(client, id).kill();
      System.out.printf(
          Locale.ROOT,
          "SIGKILL of the training worker at batch %d, attempt %d; experiment killed%n",
          batches(running),
          running.getAttempt());
      Optional<PendingActivityInfo> gone = watch(client, trial, killed2, watch, a -> false).last();
      boolean trialOpen =
          status(client, trial) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
      out.add(
          String.format(
              Locale.ROOT,
              "%s, worker killed then experiment killed: after %d s the Train activity is %s;"
                  + " trial %s; experiment %s",
              backend,
              watch,
              gone.map(
                      a ->
                          "still pending: state "
                              + a.getState().name().replace("PENDING_ACTIVITY_STATE_", "")
                              + ", attempt "
                              + a.getAttempt()
                              + ", last heartbeat "
                              + age(a)
                              + " s ago")
                  .orElse("gone (timed out or cancelled)"),
              trialOpen
                  ? "still RUNNING"
                  : status(client, trial).name().replace("WORKFLOW_EXECUTION_STATUS_", ""),
              status(client, id).name().replace("WORKFLOW_EXECUTION_STATUS_", "")));
      if (trialOpen) {
        trainer.start();
        Optional<PendingActivityInfo> after =
            watch(client, trial, Instant.now(), 60, a -> false).last();
        out.add(
            String.format(
                Locale.ROOT,
                "%s, ... and 60 s after a new worker started: Train %s; trial %s",
                backend,
                after
                    .map(
                        a ->
                            "still pending ("
                                + a.getState().name().replace("PENDING_ACTIVITY_STATE_", "")
                                + ", last heartbeat "
                                + age(a)
                                + " s ago)")
                    .orElse("gone"),
                status(client, trial).name().replace("WORKFLOW_EXECUTION_STATUS_", "")));
        trainer.kill();
      }
    } finally {
      if (trainer.process != null && trainer.process.isAlive()) {
        trainer.kill();
      }
      server.close();
    }
    return out;
  }

  /**
   * What {@link #watch} saw: whether the condition held, the last view of the Train activity
   * (empty: it is gone).
   */
  record Seen(boolean done, Optional<PendingActivityInfo> last) {}

  /** Prints the pending Train activity every 2 s until {@code done} holds or it is gone. */
  private static Seen watch(
      WorkflowClient client,
      String trial,
      Instant since,
      int seconds,
      Predicate<PendingActivityInfo> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    Optional<PendingActivityInfo> last = Optional.empty();
    while (System.nanoTime() < deadline) {
      Thread.sleep(2000);
      Optional<PendingActivityInfo> a;
      try {
        a = train(client, trial);
      } catch (RuntimeException e) {
        System.out.println("  describe failed: " + e.getMessage());
        continue;
      }
      double t = Duration.between(since, Instant.now()).toMillis() / 1000.0;
      if (a.isEmpty()) {
        System.out.printf(
            Locale.ROOT,
            "  +%5.0f s  no pending Train activity; trial %s%n",
            t,
            status(client, trial));
        return new Seen(false, Optional.empty());
      }
      PendingActivityInfo p = a.get();
      System.out.printf(
          Locale.ROOT,
          "  +%5.0f s  Train %s attempt %d, batch %d, last heartbeat %s s ago%s%n",
          t,
          p.getState().name().replace("PENDING_ACTIVITY_STATE_", ""),
          p.getAttempt(),
          batches(p),
          age(p),
          p.hasLastFailure() ? ", last failure: " + p.getLastFailure().getMessage() : "");
      last = a;
      if (done.test(p)) {
        return new Seen(true, a);
      }
    }
    return new Seen(false, last);
  }

  private static String age(PendingActivityInfo a) {
    if (!a.hasLastHeartbeatTime()) {
      return "?";
    }
    return Long.toString(Instant.now().getEpochSecond() - a.getLastHeartbeatTime().getSeconds());
  }

  private static long batches(PendingActivityInfo a) {
    if (!a.hasHeartbeatDetails() || a.getHeartbeatDetails().getPayloadsCount() == 0) {
      return 0;
    }
    try {
      TrainProgress p =
          KeelDataConverter.get()
              .fromPayloads(
                  0,
                  Optional.of(a.getHeartbeatDetails()),
                  TrainProgress.class,
                  TrainProgress.class);
      return p == null ? 0 : p.getBatches();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private static Optional<PendingActivityInfo> train(WorkflowClient client, String trial) {
    return describe(client, trial).getPendingActivitiesList().stream()
        .filter(a -> a.getActivityType().getName().equals("Train"))
        .findFirst();
  }

  private static DescribeWorkflowExecutionResponse describe(WorkflowClient client, String id) {
    return client
        .getWorkflowServiceStubs()
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace("default")
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                .build());
  }

  private static WorkflowExecutionStatus status(WorkflowClient client, String id) {
    return describe(client, id).getWorkflowExecutionInfo().getStatus();
  }

  private interface Probe<T> {
    Optional<T> get() throws Exception;
  }

  private static <T> T await(String what, Duration timeout, Probe<T> probe) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        Optional<T> v = probe.get();
        if (v.isPresent()) {
          return v.get();
        }
      } catch (RuntimeException notYet) {
        // not started yet
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("timed out waiting for " + what);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
