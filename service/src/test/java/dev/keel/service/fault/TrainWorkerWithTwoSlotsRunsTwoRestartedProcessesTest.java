package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.gpu.device.DeviceDiscovery;
import dev.keel.gpu.device.DeviceInventory;
import dev.keel.gpu.device.SlotAssignment;
import dev.keel.service.fault.FaultStack.ChildWorker;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code keel worker --roles TRAIN --slots 2} against the Java test server: the worker prints one
 * line about the devices (on a machine without a GPU: why it trains on the CPU) and one per slot,
 * then runs two slot processes that each take a trial at the same time; a slot process killed with
 * SIGKILL is started again under the same identity and takes the retried trial; stopping the worker
 * stops both. A slot process also stops by itself when its parent is gone.
 */
class TrainWorkerWithTwoSlotsRunsTwoRestartedProcessesTest {
  /**
   * Long enough that the surviving slot is still busy when the killed one's trial is retried: 800
   * batches take ~35 s on the CPU; on a GPU host with a CUDA libtorch (PYTORCH_LIBRARY_PATH) a
   * trial is one to two orders of magnitude faster.
   */
  /**
   * Temporal's SDK sends heartbeats at most every 0.8 × the timeout, so a 3 s timeout leaves a
   * fresh slot JVM 0.6 s of slack on a loaded 2-core machine: a stall that long counted as a second
   * restart.
   */
  private static final int HEARTBEAT_TIMEOUT_SECONDS = 10;

  /** Long enough that the other slot is still busy when the killed slot's trial is retried. */
  private static final long LENGTH = System.getenv("PYTORCH_LIBRARY_PATH") == null ? 1_600 : 30_000;

  private static final String CONFIG =
      """
      name: two-slots
      data: {table: fashion_mnist}
      hyperparameters: {lr: {type: categorical, vals: [0.001, 0.003]}, batch_size: 64, width: 16, dropout: 0.1, optimizer: adam}
      searcher: {name: grid, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: %d}}
      min_checkpoint_period: {batches: 100}
      max_restarts: 3
      reproducibility: {seed: 7}
      model: {name: fashion_cnn}
      """;
  private static final Pattern METRICS_LINE =
      Pattern.compile("(?m)^(\\[[^\\]]+\\] )?metrics on (http://\\S+)$");
  private static final Pattern SAMPLES_LINE =
      Pattern.compile("(?m)^keel_training_samples_total (\\S+)$");
  private static final Pattern SLOT_LINE =
      Pattern.compile("(?m)^slot (\\d): (.+), identity (\\S+)$");

  private static FaultStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.withControlInProcess("train-slots");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  /** A trial's Train activity seen running, by which worker and in which attempt. */
  record Running(long trial, String identity, int attempt, long batches) {}

  @Test
  void twoSlotsAreTwoProcessesThatTrainAtOnceAndADeadOneIsStartedAgain() throws Exception {
    ChildWorker worker =
        stack.child(
            "two-slots",
            "--roles",
            "TRAIN",
            "--slots",
            "2",
            "--train-threads",
            "1",
            "--metrics",
            "127.0.0.1:0");
    FaultStack.await(
        "the slot lines",
        Duration.ofSeconds(60),
        () -> SLOT_LINE.matcher(worker.logText()).results().count() == 2);

    // What this machine has decides the device line: on a build machine, the CPU and why.
    DeviceDiscovery here = DeviceInventory.forEnvironment(System.getenv()).discover();
    String log = worker.logText();
    assertEquals(1, log.lines().filter(SlotAssignment.summary(here, 2)::equals).count(), log);
    if (!here.onGpu()) {
      assertEquals(
          "no CUDA driver (libcuda.so.1 not found): training on CPU, 2 slot(s)",
          SlotAssignment.summary(here, 2));
    }
    Map<Integer, String> identities = new HashMap<>();
    Matcher m = SLOT_LINE.matcher(log);
    while (m.find()) {
      int slot = Integer.parseInt(m.group(1));
      if (!here.onGpu()) {
        assertEquals("CPU", m.group(2), log);
      }
      assertTrue(m.group(3).endsWith("-slot-" + slot), m.group(3));
      identities.put(slot, m.group(3));
    }
    assertEquals(Set.of(0, 1), identities.keySet());

    FaultStack.await(
        "two slot processes",
        Duration.ofSeconds(60),
        () ->
            slotProcess(worker, identities.get(0)).isPresent()
                && slotProcess(worker, identities.get(1)).isPresent());
    List<ProcessHandle> first =
        List.of(
            slotProcess(worker, identities.get(0)).get(),
            slotProcess(worker, identities.get(1)).get());

    String id =
        stack.startExperiment(
            FaultStack.config(CONFIG.formatted(LENGTH)),
            ExperimentRunOptions.newBuilder()
                .setHeartbeatTimeoutSeconds(HEARTBEAT_TIMEOUT_SECONDS)
                .build());

    // Both slots train at once, one trial each.
    Map<String, Running> bySlot = new HashMap<>();
    FaultStack.await(
        "both slots training at once",
        Duration.ofMinutes(2),
        () -> {
          bySlot.clear();
          for (Running r : running(id)) {
            if (r.batches() > 0) {
              bySlot.put(r.identity(), r);
            }
          }
          return bySlot.keySet().equals(Set.copyOf(identities.values()));
        });
    Running victim = bySlot.get(identities.get(1));

    ProcessHandle killed = first.get(1);
    killed.destroyForcibly();
    killed.onExit().get(30, TimeUnit.SECONDS);
    String restart = "slot 1 (" + identities.get(1) + ") exited with code 137";
    FaultStack.await(
        "the restart line", Duration.ofSeconds(30), () -> worker.logText().contains(restart));
    assertTrue(
        worker
            .logText()
            .lines()
            .anyMatch(l -> l.startsWith(restart) && l.endsWith("; restarting in 1 s")),
        worker.logText());
    FaultStack.await(
        "slot 1 started again",
        Duration.ofSeconds(60),
        () ->
            slotProcess(worker, identities.get(1))
                .filter(p -> p.pid() != killed.pid())
                .isPresent());
    // The trial the dead process trained is retried, and the new process of the same slot takes it:
    // the
    // other slot is still busy with its own trial.
    FaultStack.await(
        "the retried trial on the restarted slot",
        Duration.ofMinutes(2),
        () ->
            running(id).stream()
                .anyMatch(
                    r ->
                        r.trial() == victim.trial()
                            && r.attempt() >= 2
                            && r.identity().equals(identities.get(1))));

    ExperimentResult result = stack.result(id, Duration.ofMinutes(5));
    assertEquals(
        ExperimentState.State.COMPLETED,
        result.getState().getState(),
        result.getState().toString());
    for (TrialState t : result.getState().getTrialsList()) {
      assertEquals(TrialState.State.COMPLETED, t.getState(), t.toString());
      assertEquals(LENGTH, t.getCompletedLength().getBatches());
      assertEquals(t.getTrialId() == victim.trial() ? 1 : 0, t.getRestarts(), t.toString());
    }

    // --metrics: the worker and each slot process serve their own /metrics; the slots count what
    // they trained
    Map<String, String> metricsUrls = new TreeMap<>(); // by the line's prefix: the last one printed
    METRICS_LINE
        .matcher(worker.logText())
        .results()
        .forEach(line -> metricsUrls.put(String.valueOf(line.group(1)), line.group(2)));
    assertEquals(
        3, metricsUrls.size(), "the worker's and two slots' metrics lines:\n" + worker.logText());
    double trained = 0;
    for (Map.Entry<String, String> e : metricsUrls.entrySet()) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(e.getValue())).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), e.getValue());
      assertTrue(r.body().contains("jvm_memory_used_bytes"), e.getValue());
      Matcher samples = SAMPLES_LINE.matcher(r.body());
      if (!e.getKey().equals("null") && samples.find()) {
        trained += Double.parseDouble(samples.group(1));
      }
    }
    // the restarted slot counts only since its restart; the other slot trained whole trials of
    // 64-row batches
    assertTrue(trained >= LENGTH * 64, "training samples the slot processes exported: " + trained);

    List<ProcessHandle> slotProcesses = worker.process.children().toList();
    assertEquals(2, slotProcesses.size(), slotProcesses.toString());
    worker.process.destroy();
    assertTrue(worker.process.waitFor(90, TimeUnit.SECONDS), "the worker did not stop on SIGTERM");
    for (ProcessHandle p : slotProcesses) {
      assertFalse(p.isAlive(), "slot process " + p.pid() + " outlived its worker");
    }
    // The worker's own lines (its slot processes' lines start with "[<identity>] ").
    String own =
        String.join("\n", worker.logText().lines().filter(l -> !l.startsWith("[")).toList());
    assertFalse(
        own.contains("\tat ") || own.contains("Exception"),
        "a stack trace in the worker's output:\n" + own);
  }

  @Test
  void aSlotProcessStopsWhenItsParentIsGone() throws Exception {
    Process parent = new ProcessBuilder("sleep", "600").start();
    try {
      ChildWorker slot =
          stack.child(
              "orphan",
              "--roles",
              "TRAIN",
              "--slots",
              "1",
              "--identity",
              "orphan-slot-0",
              "--parent-pid",
              Long.toString(parent.pid()));
      FaultStack.await(
          "the slot process polling",
          Duration.ofSeconds(60),
          () -> slot.logText().contains("polling") || !slot.process.isAlive());
      assertTrue(slot.process.isAlive(), slot.logText());
      assertFalse(
          slot.logText().contains("slot 0:"), "a slot process leaves the slot lines to its parent");
      parent.destroyForcibly().waitFor();
      assertTrue(
          slot.process.waitFor(60, TimeUnit.SECONDS),
          "the slot process outlived its parent:\n" + slot.logText());
      assertTrue(
          slot.logText().contains("(pid " + parent.pid() + ") is gone: stopping"), slot.logText());
    } finally {
      parent.destroyForcibly();
    }
  }

  /**
   * The live slot process of the worker with this identity (its command line says so). Read from
   * {@code /proc}: {@code ProcessHandle.Info} gives no arguments for a command line past 4 KiB, and
   * a slot's class path is longer.
   */
  private static Optional<ProcessHandle> slotProcess(ChildWorker worker, String identity) {
    return worker
        .process
        .children()
        .filter(ProcessHandle::isAlive)
        .filter(
            p -> {
              List<String> args;
              try {
                args =
                    List.of(
                        Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"))
                            .split("\0"));
              } catch (IOException gone) {
                return false;
              }
              int i = args.indexOf("--identity");
              return i >= 0 && i + 1 < args.size() && args.get(i + 1).equals(identity);
            })
        .findFirst();
  }

  /** Every trial's Train activity that a worker has started, with its latest progress. */
  private static List<Running> running(String experimentId) {
    List<Running> out = new ArrayList<>();
    for (long trial = 1; trial <= 2; trial++) {
      List<PendingActivityInfo> pending;
      try {
        pending = stack.describe(experimentId + "/trial-" + trial).getPendingActivitiesList();
      } catch (StatusRuntimeException notStartedYet) {
        continue;
      }
      for (PendingActivityInfo a : pending) {
        if (a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
            && !a.getLastWorkerIdentity().isEmpty()) {
          long batches = FaultStack.progress(a).map(p -> p.getBatches()).orElse(0L);
          out.add(new Running(trial, a.getLastWorkerIdentity(), a.getAttempt(), batches));
        }
      }
    }
    return out;
  }
}
