package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrialState;
import dev.keel.service.fault.FaultStack.ChildWorker;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions.Role;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The training worker runs in its own JVM and is killed with SIGKILL at seeded-random points, again
 * and again; each time a fresh worker takes over. The experiment still completes, every resumed
 * attempt starts from the last checkpoint the dead one heartbeated (so a kill costs at most the
 * checkpoint period plus what one throttled heartbeat can hide), and the best trial's final
 * parameters are byte-for-byte those of an uninterrupted run of the same trial.
 */
class TrainingWorkerKilledRepeatedlyLosesOnlyWorkSinceLastCheckpointTest {
  private static final long SEED = 20261121L;
  private static final int KILLS = 6;
  private static final long LENGTH = 360;
  private static final long CHECKPOINT_EVERY = 50;

  /**
   * How long a dead worker's attempt stays undetected. Not 3 s: a heartbeat leaves the SDK at most
   * every {@link KeelWorkerHost#HEARTBEAT_THROTTLE} (2 s), so 3 s left a child JVM 1 s of slack,
   * and a stall that long on a loaded machine restarted a trial nobody killed.
   */
  private static final int HEARTBEAT_TIMEOUT_SECONDS = 10;

  private static final String CONFIG =
      """
      name: %s
      data: {table: fashion_mnist}
      hyperparameters: {lr: {type: categorical, vals: [0.001, 0.003]}, batch_size: 64, width: 16, dropout: 0.1, optimizer: adam}
      searcher: {name: %s, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: %d}}
      min_checkpoint_period: {batches: %d}
      max_restarts: 12
      reproducibility: {seed: %d}
      model: {name: fashion_cnn}
      """;

  private static FaultStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.withControlInProcess("killed-trainer");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  /** One observation of a trial's pending Train activity. */
  record Sample(
      long time,
      long trial,
      int attempt,
      String identity,
      long batches,
      long checkpoint,
      double rate) {}

  /** What was last seen of the trial the dying worker was training, at the moment of the kill. */
  record Kill(
      long time, int index, long trial, int attempt, long batches, long checkpoint, double rate) {}

  @Test
  void everyKillCostsOnlyTheBatchesSinceTheLastCheckpointAndTheResultIsBitIdentical()
      throws Exception {
    ExperimentConfig config =
        FaultStack.config(CONFIG.formatted("killed", "grid", LENGTH, CHECKPOINT_EVERY, SEED));
    ExperimentRunOptions options =
        ExperimentRunOptions.newBuilder()
            .setHeartbeatTimeoutSeconds(HEARTBEAT_TIMEOUT_SECONDS)
            .build();
    List<ChildWorker> workers = new ArrayList<>();
    ChildWorker worker =
        stack.child("trainer-0", "--roles", "TRAIN", "--slots", "1", "--train-threads", "1");
    workers.add(worker);
    String id = stack.startExperiment(config, options);

    List<Sample> samples = new CopyOnWriteArrayList<>();
    Thread sampler = new Thread(() -> sample(id, samples), "heartbeat-sampler");
    sampler.setDaemon(true);
    sampler.start();

    Random random = new Random(SEED);
    List<Kill> kills = new ArrayList<>();
    try {
      for (int k = 0; k < KILLS && stack.running(id); k++) {
        ChildWorker current = worker;
        // Wait for this worker's first heartbeat, then for a seeded-random amount of progress past
        // it.
        FaultStack.await(
            "worker " + current.name + " training",
            Duration.ofSeconds(90),
            () -> !stack.running(id) || latestBy(samples, current).isPresent());
        if (!stack.running(id)) {
          break;
        }
        // Progress is counted on one trial: when the worker moves on to the other one, count anew.
        Sample first = latestBy(samples, current).get();
        long more = 5L + random.nextInt(70);
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (stack.running(id)) {
          Sample s = latestBy(samples, current).get();
          if (s.trial() != first.trial()) {
            first = s;
          } else if (s.batches() >= first.batches() + more) {
            break;
          }
          assertTrue(
              System.nanoTime() < deadline,
              "worker " + current.name + " made no progress: " + samples);
          Thread.sleep(50);
        }
        if (!stack.running(id)) {
          break;
        }
        Sample last = latestBy(samples, current).get();
        current.kill();
        kills.add(
            new Kill(
                System.nanoTime(),
                k,
                last.trial(),
                last.attempt(),
                last.batches(),
                last.checkpoint(),
                last.rate()));
        worker =
            stack.child(
                "trainer-" + (k + 1), "--roles", "TRAIN", "--slots", "1", "--train-threads", "1");
        workers.add(worker);
      }
      ExperimentResult result = stack.result(id, Duration.ofMinutes(4));
      sampler.interrupt();

      assertEquals(
          ExperimentState.State.COMPLETED,
          result.getState().getState(),
          result.getState().toString());
      for (TrialState t : result.getState().getTrialsList()) {
        assertEquals(TrialState.State.COMPLETED, t.getState(), t.toString());
        assertEquals(LENGTH, t.getCompletedLength().getBatches());
      }
      int restarts =
          result.getState().getTrialsList().stream().mapToInt(TrialState::getRestarts).sum();
      assertTrue(
          kills.size() >= 5,
          "only " + kills.size() + " kills before the experiment ended: " + kills);
      assertEquals(
          kills.size(), restarts, "each kill cost exactly one restart of the trial it hit");

      // Every kill: the next attempt of the hit trial resumed from the last heartbeated checkpoint.
      String logs = workers.stream().map(ChildWorker::logText).reduce("", String::concat);
      StringBuilder report = new StringBuilder();
      for (Kill kill : kills) {
        // Worker k+1 was started after kill k: the first resume of the trial logged from then on.
        long resumed =
            workers.subList(kill.index() + 1, workers.size()).stream()
                .flatMap(w -> resumes(w.logText()).stream())
                .filter(r -> r[0] == kill.trial())
                .mapToLong(r -> r[1])
                .findFirst()
                .orElse(-1);
        assertTrue(
            resumed >= kill.checkpoint() && resumed > 0,
            "kill " + kill + ": the next attempt resumed from batch " + resumed + "\n" + logs);
        assertEquals(
            0, resumed % CHECKPOINT_EVERY, "resumed from a periodic checkpoint: " + resumed);
        for (Sample s : samples) {
          if (s.trial() == kill.trial() && s.time() > kill.time()) {
            assertTrue(
                s.batches() >= kill.checkpoint() && s.checkpoint() >= kill.checkpoint(),
                "after " + kill + " progress went back to " + s);
          }
        }
        // A heartbeat carrying a new checkpoint may sit in the SDK's throttle: 0.8 x the timeout,
        // at most
        // the worker's throttle.
        double throttle =
            Math.min(
                0.8 * HEARTBEAT_TIMEOUT_SECONDS,
                KeelWorkerHost.HEARTBEAT_THROTTLE.toMillis() / 1000.0);
        double hidden = kill.rate() * (throttle + 0.5);
        long lag = kill.batches() - kill.checkpoint();
        assertTrue(
            lag <= CHECKPOINT_EVERY + hidden,
            "kill " + kill + ": " + lag + " batches since the last checkpoint");
        report.append(
            String.format(
                "kill %d: trial %d at batch >= %d, checkpoint seen %d, resumed at %d, "
                    + "lost %d..%d batches%n",
                kill.index(),
                kill.trial(),
                kill.batches(),
                kill.checkpoint(),
                resumed,
                kill.batches() - resumed,
                Math.round(kill.batches() - resumed + hidden)));
      }
      System.out.print(report);

      // The best trial's final parameters equal an uninterrupted run's, byte for byte.
      TrialState best =
          result.getState().getTrialsList().stream()
              .filter(t -> t.getTrialId() == result.getState().getBestTrialId())
              .findFirst()
              .orElseThrow();
      byte[] killed = Files.readAllBytes(parameters(best.getLatestCheckpoint().getUri()));
      byte[] reference = Files.readAllBytes(parameters(uninterrupted(best)));
      assertArrayEquals(
          reference,
          killed,
          "parameters of trial " + best.getTrialId() + " after " + kills.size() + " kills");
    } finally {
      sampler.interrupt();
    }
  }

  /**
   * The same trial trained without interruption by a worker in this JVM (1 thread, like the killed
   * ones): a single-trial experiment with the best trial's hyperparameters and the seed that gives
   * it the same training seed ({@code reproducibility.seed + trial id}; a single trial has id 1).
   */
  private static String uninterrupted(TrialState best) throws Exception {
    KeelWorkerHost trainer = stack.inProcess(Set.of(Role.TRAIN), 1);
    try {
      double lr = best.getHparamsOrThrow("lr").getNumberValue();
      ExperimentConfig config =
          FaultStack.config(
              CONFIG
                  .formatted(
                      "reference", "single", LENGTH, CHECKPOINT_EVERY, SEED + best.getTrialId() - 1)
                  .replace("{type: categorical, vals: [0.001, 0.003]}", Double.toString(lr)));
      String id =
          stack.startExperiment(
              config, ExperimentRunOptions.newBuilder().setHeartbeatTimeoutSeconds(30).build());
      ExperimentResult result = stack.result(id, Duration.ofMinutes(3));
      assertEquals(
          ExperimentState.State.COMPLETED,
          result.getState().getState(),
          result.getState().toString());
      assertEquals(0, result.getState().getTrials(0).getRestarts());
      return result.getState().getTrials(0).getLatestCheckpoint().getUri();
    } finally {
      stack.stop(trainer);
    }
  }

  private static Path parameters(String checkpointUri) {
    return Path.of(URI.create(checkpointUri)).resolve("parameters.djl");
  }

  private static final Pattern RESUME =
      Pattern.compile(
          "trial trial-(\\d+): attempt (\\d+) resumes from its heartbeat checkpoint \\S+ \\(batch (\\d+)\\)");

  /**
   * (trial, batch of the heartbeat checkpoint) of each resumed attempt in one worker's log, in
   * order.
   */
  private static List<long[]> resumes(String log) {
    List<long[]> out = new ArrayList<>();
    Matcher m = RESUME.matcher(log);
    while (m.find()) {
      out.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(3))});
    }
    return out;
  }

  private static Optional<Sample> latestBy(List<Sample> samples, ChildWorker worker) {
    for (int i = samples.size() - 1; i >= 0; i--) {
      Sample s = samples.get(i);
      if (worker.isIdentity(s.identity())) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * Records every trial's pending Train activity (attempt, worker, heartbeat details) every 100 ms.
   */
  private static void sample(String experimentId, List<Sample> samples) {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        for (long trial = 1; trial <= 2; trial++) {
          String wf = experimentId + "/trial-" + trial;
          List<PendingActivityInfo> pending;
          try {
            pending = stack.describe(wf).getPendingActivitiesList();
          } catch (StatusRuntimeException e) {
            continue; // not started yet
          }
          for (PendingActivityInfo a : pending) {
            Optional<TrainProgress> p = FaultStack.progress(a);
            if (a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                && p.isPresent()
                && !a.getLastWorkerIdentity().isEmpty()) {
              samples.add(
                  new Sample(
                      System.nanoTime(),
                      trial,
                      a.getAttempt(),
                      a.getLastWorkerIdentity(),
                      p.get().getBatches(),
                      p.get().getLastCheckpoint().getBatches(),
                      p.get().getBatchesPerSecond()));
            }
          }
        }
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // the server is shutting down
      }
    }
  }
}
