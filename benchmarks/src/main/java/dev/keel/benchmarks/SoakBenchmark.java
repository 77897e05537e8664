package dev.keel.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.TrainProgress;
import dev.keel.service.api.ApiServer;
import dev.keel.service.dev.TemporalCliServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import io.temporal.activity.ActivityMethod;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflow.v1.PendingChildExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A soak with faults on the Temporal CLI's dev server: for {@code --minutes}, keep {@code
 * --experiments} experiments and {@code --pipelines} pipelines (ETL → search → final training →
 * register → inference) running, submitted through the REST API as a user would, while a chaos
 * thread SIGKILLs worker processes at random ({@code keel worker --roles TRAIN}, {@code CONTROL},
 * {@code ETL}, {@code INFER}, each its own child JVM, restarted after a few seconds) and SIGKILLs
 * the Temporal dev server, restarting it on the same port and database file. Then no more faults
 * nor submissions: the runs still pending must finish within {@code --drain-minutes}.
 *
 * <p>Reports the runs completed, trials lost (every trial of every experiment, the pipelines'
 * included, must be COMPLETED in the catalog's {@code _keel/trials}), kills per role and server
 * restarts, the longest stall (the longest time in which no run made progress: no new
 * non-workflow-task history event in any watched workflow, no new training progress in any
 * heartbeat, no run ending, while runs were pending), and every error a user would have seen:
 * failed runs with their messages, and the errors of the API calls a user makes (submissions, and
 * {@code GET /api/v1/experiments/{id}} / {@code /api/v1/pipelines/{id}} for each pending run every
 * {@code --watch-seconds}). Exit 1 on a lost trial, a failed run or a run that did not finish.
 *
 * <pre>
 * SoakBenchmark [--minutes 30] [--experiments 2] [--pipelines 1] [--trials 3] [--batches 40]
 *     [--train-workers 2] [--fault-min-seconds 20] [--fault-max-seconds 50] [--drain-minutes 15]
 *     [--watch-seconds 10] [--seed 1] [--storage DIR] [--data DIR] [--temporal-cli PATH]
 *     [--weights train=3,control=2,etl=1,infer=1,server=2] [--aimed 0.25]
 * </pre>
 */
public final class SoakBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final List<String> ROLES = List.of("TRAIN", "CONTROL", "ETL", "INFER", "SERVER");

  /** A run this benchmark submitted and watches. */
  static final class Run {
    final String id;
    final boolean pipeline;
    final Instant submitted = Instant.now();
    volatile String outcome; // null while pending
    volatile String experimentId;
    volatile boolean ok;
    final Map<String, Long> events =
        new ConcurrentHashMap<>(); // workflow id -> non-workflow-task events
    final Map<String, Long> historyLengths = new ConcurrentHashMap<>();
    final Map<String, String> heartbeats =
        new ConcurrentHashMap<>(); // workflow id/activity id -> last progress

    Run(String id, boolean pipeline) {
      this.id = id;
      this.pipeline = pipeline;
    }
  }

  /** A {@code keel worker --roles ROLE} child JVM that can be SIGKILLed and started again. */
  static final class Child {
    final String name;
    final String role;
    final List<String> command;
    final Path log;
    volatile Process process;

    Child(String name, String role, List<String> command, Path log) {
      this.name = name;
      this.role = role;
      this.command = command;
      this.log = log;
    }

    void start() throws IOException {
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().put("OMP_WAIT_POLICY", "passive");
      pb.environment().put("OMP_NUM_THREADS", "1");
      pb.environment().put("KEEL_LOG_LEVEL", "INFO");
      pb.environment().remove("TEMPORAL_ADDRESS");
      process = pb.start();
    }

    void kill() throws InterruptedException {
      Process p = process;
      p.destroyForcibly(); // SIGKILL
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(name + " survived SIGKILL");
      }
    }
  }

  /** An error a user would have seen. */
  record UserError(Instant time, String where, String message) {}

  private final Random random;
  private final StorageRoot root;
  private final Path storage;
  private final Path binary;
  private final int temporalPort;
  private final int uiPort;
  private final Path db;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private volatile TemporalCliServer server;
  private volatile boolean serverDown;
  private final Map<String, Child> children = new LinkedHashMap<>();
  private final List<Run> runs = new CopyOnWriteArrayList<>();
  private final List<UserError> userErrors = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> kills = new ConcurrentHashMap<>();
  private final List<String> faultLog = new CopyOnWriteArrayList<>();
  private final List<Instant[]> faultWindows =
      new CopyOnWriteArrayList<>(); // [start, end] of each fault

  /** Fault weights in the order of {@link #ROLES}. */
  private int[] weights = {3, 2, 1, 1, 2};

  private double aimed = 0.25;
  private final Set<String> pendingActivityTypes = ConcurrentHashMap.newKeySet();
  private final Set<String> etlTypes = activityNames(IngestActivities.class);
  private final Set<String> inferTypes = activityNames(InferenceActivities.class);
  // stalls
  private volatile Instant lastProgress = Instant.now();
  private final List<double[]> stalls = new CopyOnWriteArrayList<>(); // [seconds, startEpochMs]

  private SoakBenchmark(long seed, StorageRoot root, Path storage, Path binary) throws IOException {
    this.random = new Random(seed);
    this.root = root;
    this.storage = storage;
    this.binary = binary;
    this.temporalPort = freePort();
    this.uiPort = freePort();
    this.db = storage.resolve("temporal").resolve("dev.db");
    this.server = TemporalCliServer.start(binary, temporalPort, uiPort, db, Duration.ofSeconds(90));
    this.stubs = KeelWorkerHost.connect(server.address());
    this.client = KeelWorkerHost.client(stubs, "default", root);
  }

  public static void main(String[] args) throws Exception {
    double minutes = 30;
    int experiments = 2;
    int pipelines = 1;
    int trials = 3;
    int batches = 40;
    int trainWorkers = 2;
    double faultMin = 20;
    double faultMax = 50;
    double drainMinutes = 15;
    int watchSeconds = 10;
    long seed = 1;
    Path storage = null;
    Path data = Path.of("/usr/share/datasets/fashion-mnist");
    Path binary = null;
    String weights = "train=3,control=2,etl=1,infer=1,server=2";
    double aimed = 0.25;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--minutes" -> minutes = Double.parseDouble(args[++i]);
        case "--experiments" -> experiments = Integer.parseInt(args[++i]);
        case "--pipelines" -> pipelines = Integer.parseInt(args[++i]);
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--batches" -> batches = Integer.parseInt(args[++i]);
        case "--train-workers" -> trainWorkers = Integer.parseInt(args[++i]);
        case "--fault-min-seconds" -> faultMin = Double.parseDouble(args[++i]);
        case "--fault-max-seconds" -> faultMax = Double.parseDouble(args[++i]);
        case "--drain-minutes" -> drainMinutes = Double.parseDouble(args[++i]);
        case "--watch-seconds" -> watchSeconds = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--storage" -> storage = Path.of(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        case "--temporal-cli" -> binary = Path.of(args[++i]);
        case "--weights" -> weights = args[++i];
        case "--aimed" -> aimed = Double.parseDouble(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--minutes M --experiments N"
                    + " --pipelines N --trials N --batches N --train-workers N --fault-min-seconds S --fault-max-seconds S"
                    + " --drain-minutes M --watch-seconds S --seed N --storage DIR --data DIR --temporal-cli PATH"
                    + " --weights train=3,control=2,etl=1,infer=1,server=2 --aimed 0.25)");
      }
    }
    if (binary == null) {
      binary =
          TemporalCliServer.locate()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no `temporal` binary:"
                              + " GOBIN=$PWD/.tools go install github.com/temporalio/cli/cmd/temporal@v1.5.1, or --temporal-cli PATH"));
    }
    if (storage == null) {
      storage = Files.createTempDirectory("keel-bench-soak");
    }
    storage = storage.toAbsolutePath();
    StorageRoot root = StorageRoot.of(storage.toString());
    String loadBefore = Machine.loadAverages();
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + loadBefore);
    FashionData.ingest(root, data);
    SoakBenchmark soak = new SoakBenchmark(seed, root, storage, binary);
    for (String w : weights.split(",")) {
      String[] kv = w.split("=");
      soak.weights[ROLES.indexOf(kv[0].trim().toUpperCase(Locale.ROOT))] =
          Integer.parseInt(kv[1].trim());
    }
    for (String r : ROLES) {
      if (!weights.toUpperCase(Locale.ROOT).contains(r + "=")) {
        soak.weights[ROLES.indexOf(r)] = 0;
      }
    }
    soak.aimed = aimed;
    System.out.printf(
        Locale.ROOT,
        "soak %.1f min (+ drain up to %.0f min): %d experiment(s) and %d pipeline(s) at a time,"
            + " %d trials x %d batches; %d training worker JVM(s); a fault every %.0f-%.0f s; Temporal CLI dev server %s"
            + " (db %s); storage %s; fault weights %s, aimed at busy ETL/inference workers %.0f%% of the time%n",
        minutes,
        drainMinutes,
        experiments,
        pipelines,
        trials,
        batches,
        trainWorkers,
        faultMin,
        faultMax,
        soak.server.address(),
        soak.db,
        storage,
        weights,
        aimed * 100);
    int code =
        soak.run(
            minutes,
            drainMinutes,
            experiments,
            pipelines,
            trials,
            batches,
            trainWorkers,
            faultMin,
            faultMax,
            watchSeconds,
            data);
    System.out.println(
        "load averages before: " + loadBefore + ", after: " + Machine.loadAverages());
    System.exit(code);
  }

  private int run(
      double minutes,
      double drainMinutes,
      int experiments,
      int pipelines,
      int trials,
      int batches,
      int trainWorkers,
      double faultMin,
      double faultMax,
      int watchSeconds,
      Path data)
      throws Exception {
    Path logs = Files.createDirectories(storage.resolve("logs"));
    List<String> roles = new ArrayList<>(List.of("CONTROL", "ETL", "INFER"));
    for (int i = 1; i <= trainWorkers; i++) {
      roles.add("TRAIN");
    }
    int t = 0;
    for (String role : roles) {
      String name = role.toLowerCase(Locale.ROOT) + (role.equals("TRAIN") ? "-" + (++t) : "");
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
              role,
              "--train-threads",
              "1",
              "--identity",
              name,
              "--temporal",
              server.address(),
              "--storage",
              root.toString());
      Child c = new Child(name, role, command, logs.resolve(name + ".log"));
      children.put(name, c);
      c.start();
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () ->
                    children
                        .values()
                        .forEach(
                            c -> {
                              Process p = c.process;
                              if (p != null) {
                                p.destroyForcibly();
                              }
                            })));
    awaitPolling(Duration.ofMinutes(3));
    ApiServer api = ApiServer.start("127.0.0.1", 0, client, root);
    String url = api.url() + "/api/v1";
    System.out.println(
        "workers polling: "
            + children.keySet()
            + "; API "
            + url
            + "; Temporal web UI http://127.0.0.1:"
            + uiPort);

    Instant start = Instant.now();
    Instant deadline = start.plusMillis((long) (minutes * 60_000));
    AtomicBoolean soaking = new AtomicBoolean(true);
    AtomicBoolean monitoring = new AtomicBoolean(true);
    lastProgress = start;
    Thread monitor = new Thread(() -> monitor(monitoring), "soak-monitor");
    monitor.setDaemon(true);
    monitor.start();
    Thread watcher = new Thread(() -> watch(url, monitoring, watchSeconds), "soak-user");
    watcher.setDaemon(true);
    watcher.start();
    Thread chaos = new Thread(() -> chaos(soaking, faultMin, faultMax), "soak-chaos");
    chaos.start();

    int submittedExperiments = 0;
    int submittedPipelines = 0;
    long lastPrint = 0;
    while (Instant.now().isBefore(deadline)) {
      long pendingExperiments = runs.stream().filter(r -> !r.pipeline && r.outcome == null).count();
      long pendingPipelines = runs.stream().filter(r -> r.pipeline && r.outcome == null).count();
      if (pendingExperiments < experiments) {
        if (submit(
                url + "/experiments",
                experimentYaml(++submittedExperiments, trials, batches),
                false)
            == null) {
          submittedExperiments--;
          Thread.sleep(5000);
        }
        continue;
      }
      if (pendingPipelines < pipelines) {
        int slot = (int) (submittedPipelines % pipelines);
        if (submit(
                url + "/pipelines",
                pipelineYaml(++submittedPipelines, slot, trials, batches, data),
                true)
            == null) {
          submittedPipelines--;
          Thread.sleep(5000);
        }
        continue;
      }
      Thread.sleep(1000);
      long now = System.currentTimeMillis();
      if (now - lastPrint > 60_000) {
        lastPrint = now;
        status("soak");
      }
    }
    soaking.set(false);
    System.out.println(
        clock() + " soak over: no more submissions; waiting for the last fault to heal");
    chaos.join();
    Instant drainStart = Instant.now();
    Instant drainDeadline = drainStart.plusMillis((long) (drainMinutes * 60_000));
    while (runs.stream().anyMatch(r -> r.outcome == null)
        && Instant.now().isBefore(drainDeadline)) {
      Thread.sleep(2000);
      long now = System.currentTimeMillis();
      if (now - lastPrint > 60_000) {
        lastPrint = now;
        status("drain");
      }
    }
    Instant end = Instant.now();
    monitoring.set(false);
    monitor.join(30_000);
    closeStallAt(end);
    api.close();
    return report(start, drainStart, end, trials);
  }

  // ---------------------------------------------------------------- submitting, as a user would

  /** POSTs a run; returns its id, or null after recording the error a user saw. */
  private String submit(String endpoint, String yaml, boolean pipeline) {
    String where = "POST " + endpoint.substring(endpoint.indexOf("/api/v1"));
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(endpoint))
                  .timeout(Duration.ofSeconds(60))
                  .header("Content-Type", "application/yaml")
                  .POST(HttpRequest.BodyPublishers.ofString(yaml))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 202) {
        userError(where, r.statusCode() + " " + r.body());
        return null;
      }
      String id = JSON.readTree(r.body()).get(pipeline ? "pipeline_id" : "experiment_id").asText();
      runs.add(new Run(id, pipeline));
      System.out.println(clock() + " submitted " + (pipeline ? "pipeline " : "experiment ") + id);
      return id;
    } catch (IOException e) {
      userError(where, e.toString());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** What a user watching the runs does: GET each pending run's state every few seconds. */
  private void watch(String url, AtomicBoolean on, int seconds) {
    while (on.get()) {
      for (Run r : runs) {
        if (r.outcome != null) {
          continue;
        }
        String path = (r.pipeline ? "/pipelines/" : "/experiments/") + r.id;
        try {
          HttpResponse<String> resp =
              HTTP.send(
                  HttpRequest.newBuilder(URI.create(url + path))
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          if (resp.statusCode() != 200 && r.outcome == null) {
            userError(
                "GET /api/v1" + (r.pipeline ? "/pipelines/{id}" : "/experiments/{id}"),
                resp.statusCode() + " " + resp.body());
          }
        } catch (IOException e) {
          userError(
              "GET /api/v1" + (r.pipeline ? "/pipelines/{id}" : "/experiments/{id}"), e.toString());
        } catch (InterruptedException e) {
          return;
        }
      }
      sleep(seconds * 1000L);
    }
  }

  private void userError(String where, String message) {
    String m = message.replaceAll("\\s+", " ");
    userErrors.add(
        new UserError(Instant.now(), where, m.length() > 400 ? m.substring(0, 400) + "…" : m));
  }

  // ---------------------------------------------------------------- faults

  private void chaos(AtomicBoolean on, double minSeconds, double maxSeconds) {
    while (on.get()) {
      long waitMs = (long) (1000 * (minSeconds + random.nextDouble() * (maxSeconds - minSeconds)));
      long until = System.currentTimeMillis() + waitMs;
      while (on.get() && System.currentTimeMillis() < until) {
        sleep(200);
      }
      if (!on.get()) {
        return;
      }
      String role = pickRole();
      Instant faultStart = Instant.now();
      try {
        if (role.equals("SERVER")) {
          restartServer();
        } else {
          List<Child> candidates =
              children.values().stream().filter(c -> c.role.equals(role)).toList();
          Child c = candidates.get(random.nextInt(candidates.size()));
          c.kill();
          kills.merge(role, 1, Integer::sum);
          long downMs = 1000L + random.nextInt(9000);
          faultLog.add(
              clock()
                  + " SIGKILL "
                  + c.name
                  + " (pending activity types "
                  + new TreeSet<>(pendingActivityTypes)
                  + "), restarted after "
                  + downMs / 1000
                  + " s");
          System.out.println(faultLog.get(faultLog.size() - 1));
          sleep(downMs);
          c.start();
        }
      } catch (Exception e) {
        faultLog.add(clock() + " FAULT INJECTION FAILED (" + role + "): " + e);
        System.out.println(faultLog.get(faultLog.size() - 1));
      }
      faultWindows.add(new Instant[] {faultStart, Instant.now()});
    }
  }

  /**
   * At random by {@code --weights}; with probability {@code --aimed}, the ETL or inference worker
   * when one of their activities is pending right now (they are idle most of the time, and killing
   * an idle worker tests little).
   */
  private String pickRole() {
    Set<String> pending = Set.copyOf(pendingActivityTypes);
    if (random.nextDouble() < aimed) {
      if (weights[ROLES.indexOf("ETL")] > 0 && pending.stream().anyMatch(etlTypes::contains)) {
        return "ETL";
      }
      if (weights[ROLES.indexOf("INFER")] > 0 && pending.stream().anyMatch(inferTypes::contains)) {
        return "INFER";
      }
    }
    int x = random.nextInt(Arrays.stream(weights).sum());
    for (int i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) {
        return ROLES.get(i);
      }
    }
    return "TRAIN";
  }

  /**
   * SIGKILL of the dev server itself (not a graceful stop), then a start on the same port and
   * database file.
   */
  private void restartServer() throws Exception {
    String marker = "--db-filename " + db.toAbsolutePath() + " ";
    List<ProcessHandle> temporal =
        ProcessHandle.current()
            .descendants()
            .filter(h -> h.info().command().map(c -> c.endsWith("/temporal")).orElse(false))
            .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
            .toList();
    if (temporal.isEmpty()) {
      throw new IllegalStateException("no temporal process found under this JVM");
    }
    serverDown = true;
    for (ProcessHandle h : temporal) {
      h.destroyForcibly();
      h.onExit().get(30, TimeUnit.SECONDS);
    }
    server.close(); // its watchdog has nothing left to stop
    long downMs = 1000L + random.nextInt(5000);
    sleep(downMs);
    long t = System.nanoTime();
    server = TemporalCliServer.start(binary, temporalPort, uiPort, db, Duration.ofMinutes(2));
    serverDown = false;
    kills.merge("SERVER", 1, Integer::sum);
    faultLog.add(
        String.format(
            Locale.ROOT,
            "%s SIGKILL the Temporal dev server, started again after %.1f s (listening %.1f s after the start)",
            clock(),
            downMs / 1000.0 + (System.nanoTime() - t) / 1e9,
            (System.nanoTime() - t) / 1e9));
    System.out.println(faultLog.get(faultLog.size() - 1));
  }

  // ---------------------------------------------------------------- progress and completion

  private void monitor(AtomicBoolean on) {
    while (on.get()) {
      sleep(2000);
      if (serverDown) {
        continue;
      }
      boolean progressed = false;
      Set<String> types = new HashSet<>();
      for (Run r : runs) {
        if (r.outcome != null) {
          continue;
        }
        try {
          DescribeWorkflowExecutionResponse d = describe(r.id);
          WorkflowExecutionStatus status = d.getWorkflowExecutionInfo().getStatus();
          if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
            finish(r, status);
            progressed = true;
            continue;
          }
          progressed |= progress(r, r.id, d, 0, types);
        } catch (RuntimeException e) {
          // the server is restarting, or the run is not visible yet: no progress seen this round
        }
      }
      pendingActivityTypes.retainAll(types);
      pendingActivityTypes.addAll(types);
      Instant now = Instant.now();
      if (progressed) {
        closeStallAt(now);
      }
      if (runs.stream().noneMatch(r -> r.outcome == null)) {
        lastProgress = now; // nothing pending: no stall
      }
    }
  }

  private synchronized void closeStallAt(Instant now) {
    double gap = Duration.between(lastProgress, now).toMillis() / 1000.0;
    stalls.add(new double[] {gap, lastProgress.toEpochMilli()});
    lastProgress = now;
  }

  /**
   * Whether the workflow (or its pending children, recursively) made progress since the last look.
   */
  private boolean progress(
      Run r, String workflowId, DescribeWorkflowExecutionResponse d, int depth, Set<String> types) {
    boolean progressed = false;
    long length = d.getWorkflowExecutionInfo().getHistoryLength();
    Long before = r.historyLengths.put(workflowId, length);
    if (before == null || before != length) {
      long events = 0;
      for (HistoryEvent e : client.fetchHistory(workflowId).getEvents()) {
        if (!e.getEventType().name().startsWith("EVENT_TYPE_WORKFLOW_TASK_")) {
          events++;
        }
      }
      Long eventsBefore = r.events.put(workflowId, events);
      progressed = eventsBefore == null || eventsBefore != events;
    }
    for (PendingActivityInfo a : d.getPendingActivitiesList()) {
      types.add(a.getActivityType().getName());
      if (a.hasHeartbeatDetails() && a.getHeartbeatDetails().getPayloadsCount() > 0) {
        String details;
        try {
          TrainProgress p =
              KeelDataConverter.get()
                  .fromPayloads(
                      0,
                      Optional.of(a.getHeartbeatDetails()),
                      TrainProgress.class,
                      TrainProgress.class);
          details = p == null ? "" : p.getBatches() + "/" + p.getLastCheckpoint().getUuid();
        } catch (RuntimeException notTraining) {
          details = a.getHeartbeatDetails().toString();
        }
        if (!details.isEmpty()) {
          String previous = r.heartbeats.put(workflowId + "/" + a.getActivityId(), details);
          progressed |= previous != null && !previous.equals(details);
        }
      }
    }
    if (depth < 3) {
      for (PendingChildExecutionInfo c : d.getPendingChildrenList()) {
        try {
          progressed |=
              progress(r, c.getWorkflowId(), describe(c.getWorkflowId()), depth + 1, types);
        } catch (RuntimeException e) {
          // not started yet
        }
      }
    }
    return progressed;
  }

  private DescribeWorkflowExecutionResponse describe(String workflowId) {
    return stubs
        .blockingStub()
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace("default")
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                .build());
  }

  private void finish(Run r, WorkflowExecutionStatus status) {
    try {
      if (r.pipeline) {
        PipelineResult p =
            client
                .newUntypedWorkflowStub(r.id)
                .getResult(30, TimeUnit.SECONDS, PipelineResult.class);
        r.experimentId = p.getExperimentId();
        r.ok = p.hasInference() && p.getInference().getRows() > 0;
        r.outcome =
            String.format(
                Locale.ROOT,
                "COMPLETED: experiment %s, model %s v%d, test accuracy %.4f on %d rows",
                p.getExperimentId(),
                p.getModel().getName(),
                p.getModel().getVersion(),
                p.getInference().getAccuracy(),
                p.getInference().getRows());
      } else {
        ExperimentResult e =
            client
                .newUntypedWorkflowStub(r.id)
                .getResult(30, TimeUnit.SECONDS, ExperimentResult.class);
        r.experimentId = r.id;
        r.ok = e.getState().getState() == ExperimentState.State.COMPLETED;
        r.outcome =
            e.getState().getState()
                + (e.getState().getError().isEmpty() ? "" : ": " + e.getState().getError());
      }
    } catch (WorkflowFailedException e) {
      StringBuilder why =
          new StringBuilder(status.name().replace("WORKFLOW_EXECUTION_STATUS_", ""));
      for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
        why.append(": ").append(c.getMessage());
      }
      r.ok = false;
      r.outcome = why.toString();
    } catch (Exception e) {
      return; // not readable now (server restarting): the next round tries again
    }
    double seconds = Duration.between(r.submitted, Instant.now()).toMillis() / 1000.0;
    System.out.printf(
        Locale.ROOT,
        "%s %s %s ended after %.0f s: %s%n",
        clock(),
        r.pipeline ? "pipeline" : "experiment",
        r.id,
        seconds,
        r.outcome);
  }

  // ---------------------------------------------------------------- report

  private int report(Instant start, Instant drainStart, Instant end, int trials) {
    long tCatalog = System.nanoTime();
    Map<String, Map<Long, CatalogTrials.Trial>> catalog = CatalogTrials.read(root);
    System.out.printf(
        Locale.ROOT,
        "%s read the catalog's trials table in %.1f s%n",
        clock(),
        (System.nanoTime() - tCatalog) / 1e9);
    int experimentsDone = 0;
    int pipelinesDone = 0;
    int trialsExpected = 0;
    int trialsCompleted = 0;
    List<String> problems = new ArrayList<>();
    for (Run r : runs) {
      if (r.outcome == null) {
        problems.add((r.pipeline ? "pipeline " : "experiment ") + r.id + " did not finish");
        continue;
      }
      if (!r.ok) {
        problems.add((r.pipeline ? "pipeline " : "experiment ") + r.id + " FAILED: " + r.outcome);
      } else if (r.pipeline) {
        pipelinesDone++;
      } else {
        experimentsDone++;
      }
      if (r.experimentId == null || r.experimentId.isEmpty()) {
        continue;
      }
      trialsExpected += trials;
      List<CatalogTrials.Trial> rows =
          List.copyOf(catalog.getOrDefault(r.experimentId, Map.of()).values());
      long ok = rows.stream().filter(x -> "COMPLETED".equals(x.state())).count();
      trialsCompleted += (int) ok;
      if (ok != trials) {
        problems.add(
            "experiment "
                + r.experimentId
                + (r.pipeline ? " (pipeline " + r.id + ")" : "")
                + ": catalog has "
                + rows.stream()
                    .map(
                        x ->
                            x.trialId()
                                + "="
                                + x.state()
                                + (x.error().isEmpty() ? "" : " (" + x.error() + ")"))
                    .toList()
                + ", expected "
                + trials
                + " COMPLETED");
      }
    }
    int lost = trialsExpected - trialsCompleted;
    long pendingRuns = runs.stream().filter(r -> r.outcome == null).count();
    // trials of runs that never finished count as lost too
    lost += (int) (pendingRuns * trials);

    double soakMin = Duration.between(start, drainStart).toMillis() / 60000.0;
    double drainMin = Duration.between(drainStart, end).toMillis() / 60000.0;
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Soak with faults on the Temporal CLI dev server: %.1f min of faults and submissions"
            + " (%s-%s UTC), then %.1f min to drain%n",
        soakMin,
        CLOCK.format(start),
        CLOCK.format(drainStart),
        drainMin);
    System.out.println("| what | count |");
    System.out.println("|---|---|");
    System.out.printf(
        Locale.ROOT,
        "| experiments submitted / completed | %d / %d |%n",
        runs.stream().filter(r -> !r.pipeline).count(),
        experimentsDone);
    System.out.printf(
        Locale.ROOT,
        "| pipelines submitted / completed | %d / %d |%n",
        runs.stream().filter(r -> r.pipeline).count(),
        pipelinesDone);
    System.out.printf(
        Locale.ROOT,
        "| trials expected / COMPLETED in `_keel/trials` | %d / %d |%n",
        trialsExpected + pendingRuns * trials,
        trialsCompleted);
    System.out.printf(Locale.ROOT, "| **trials lost** | **%d** |%n", lost);
    System.out.printf(
        Locale.ROOT,
        "| failed runs | %d |%n",
        runs.stream().filter(r -> r.outcome != null && !r.ok).count());
    for (String role : ROLES) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %d |%n",
          role.equals("SERVER")
              ? "Temporal dev server SIGKILLed and restarted"
              : "SIGKILL of " + role + " workers",
          kills.getOrDefault(role, 0));
    }
    List<double[]> sorted = new ArrayList<>(stalls);
    sorted.sort((a, b) -> Double.compare(b[0], a[0]));
    List<Double> gaps = stalls.stream().map(s -> s[0]).toList();
    System.out.printf(
        Locale.ROOT,
        "| longest stall (no progress anywhere while runs were pending) | %.0f s |%n",
        sorted.isEmpty() ? 0 : sorted.get(0)[0]);
    System.out.printf(
        Locale.ROOT, "| median time between progress events | %.1f s |%n", Machine.median(gaps));
    System.out.printf(Locale.ROOT, "| API errors a user saw | %d |%n", userErrors.size());
    System.out.println();
    System.out.println("Longest stalls, with the faults in the minute before and during them:");
    for (double[] s : sorted.subList(0, Math.min(5, sorted.size()))) {
      Instant from = Instant.ofEpochMilli((long) s[1]);
      Instant to = from.plusMillis((long) (s[0] * 1000));
      List<String> during = faultLog.stream().filter(f -> overlaps(f, from, to)).toList();
      System.out.printf(
          Locale.ROOT,
          "  %.0f s from %s to %s; faults: %s%n",
          s[0],
          CLOCK.format(from),
          CLOCK.format(to),
          during.isEmpty() ? "none" : during);
    }
    System.out.println();
    System.out.println("Faults (" + faultLog.size() + "):");
    faultLog.forEach(f -> System.out.println("  " + f));
    System.out.println();
    System.out.println("Runs (" + runs.size() + "):");
    for (Run r : runs) {
      System.out.println(
          "  "
              + (r.pipeline ? "pipeline   " : "experiment ")
              + r.id
              + ": "
              + (r.outcome == null ? "PENDING" : r.outcome));
    }
    System.out.println();
    System.out.println("Errors a user would have seen (" + userErrors.size() + "):");
    Map<String, List<UserError>> grouped = new TreeMap<>();
    for (UserError e : userErrors) {
      grouped.computeIfAbsent(e.where() + " → " + e.message(), k -> new ArrayList<>()).add(e);
    }
    grouped.forEach(
        (k, v) ->
            System.out.printf(
                Locale.ROOT,
                "  %dx %s (%s)%n",
                v.size(),
                k,
                v.size() == 1
                    ? CLOCK.format(v.get(0).time())
                    : CLOCK.format(v.get(0).time())
                        + " … "
                        + CLOCK.format(v.get(v.size() - 1).time())));
    for (Run r : runs) {
      if (r.outcome != null && !r.ok) {
        System.out.println("  failed run " + r.id + ": " + r.outcome);
      }
    }
    System.out.println();
    if (problems.isEmpty() && lost == 0) {
      System.out.println("nothing lost, no run failed");
      return 0;
    }
    System.out.println("PROBLEMS (" + problems.size() + "):");
    problems.forEach(p -> System.out.println("  " + p));
    return 1;
  }

  /** Whether the fault logged as "HH:mm:ss …" happened within [from - 60 s, to]. */
  private static boolean overlaps(String fault, Instant from, Instant to) {
    String hms = fault.substring(0, 8);
    Instant day = to.truncatedTo(ChronoUnit.DAYS);
    Instant at = day.plus(Duration.between(LocalTime.MIDNIGHT, LocalTime.parse(hms)));
    return !at.isBefore(from.minusSeconds(60)) && !at.isAfter(to);
  }

  private void status(String phase) {
    long pe = runs.stream().filter(r -> !r.pipeline && r.outcome == null).count();
    long pp = runs.stream().filter(r -> r.pipeline && r.outcome == null).count();
    long de = runs.stream().filter(r -> !r.pipeline && r.outcome != null).count();
    long dp = runs.stream().filter(r -> r.pipeline && r.outcome != null).count();
    System.out.printf(
        Locale.ROOT,
        "%s %s: pending %d experiment(s), %d pipeline(s); ended %d / %d; kills %s; %d user errors;"
            + " last progress %.0f s ago; pending activity types %s (load %s)%n",
        clock(),
        phase,
        pe,
        pp,
        de,
        dp,
        new TreeMap<>(kills),
        userErrors.size(),
        Duration.between(lastProgress, Instant.now()).toMillis() / 1000.0,
        new TreeSet<>(pendingActivityTypes),
        Machine.loadAverages());
  }

  // ---------------------------------------------------------------- configs

  static String experimentYaml(int n, int trials, int batches) {
    return """
        name: soak-%d
        data: {table: fashion_mnist}
        hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 32, width: 4, optimizer: adam}
        searcher: {name: random, metric: validation_loss, smaller_is_better: true, max_trials: %d, max_length: {batches: %d}}
        min_validation_period: {batches: %d}
        reproducibility: {seed: %d}
        model: {name: fashion_cnn}
        """
        .formatted(n, trials, batches, Math.max(1, batches / 2), n);
  }

  static String pipelineYaml(int n, int slot, int trials, int batches, Path data) {
    return """
        name: soak-pipeline
        source: {format: fashion_mnist, uri: %s}
        target_table: soak_fashion_%d
        experiment:
          name: soak-pipeline-%d
          hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 32, width: 4, optimizer: adam}
          searcher: {name: random, metric: validation_accuracy, smaller_is_better: false, max_trials: %d, max_length: {batches: %d}}
          min_validation_period: {batches: %d}
          reproducibility: {seed: %d}
          model: {name: fashion_cnn}
        final_training: {max_length: {batches: %d}}
        inference: {split: test}
        """
        .formatted(
            data.toAbsolutePath(),
            slot,
            n,
            trials,
            batches,
            Math.max(1, batches / 2),
            1000 + n,
            batches * 2);
  }

  // ---------------------------------------------------------------- helpers

  private void awaitPolling(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Child c : children.values()) {
      while (!Files.exists(c.log) || !Files.readString(c.log).contains("polling")) {
        if (!c.process.isAlive()) {
          throw new IllegalStateException(c.name + " exited: " + Files.readString(c.log));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              c.name + " is not polling after " + timeout + ": " + c.log);
        }
        Thread.sleep(200);
      }
    }
  }

  private static Set<String> activityNames(Class<?> activities) {
    Set<String> names = new HashSet<>();
    for (Method m : activities.getMethods()) {
      ActivityMethod a = m.getAnnotation(ActivityMethod.class);
      names.add(
          a != null && !a.name().isEmpty()
              ? a.name()
              : Character.toUpperCase(m.getName().charAt(0)) + m.getName().substring(1));
    }
    return names;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  private static String clock() {
    return CLOCK.format(Instant.now());
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
