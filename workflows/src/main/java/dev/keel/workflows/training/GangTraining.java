package dev.keel.workflows.training;

import dev.keel.activities.train.GangRendezvous;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.activities.train.TrainingActivityOptions;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.GangSpec;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.RankStarted;
import dev.keel.api.v1.Rendezvous;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Trains one step on a gang of {@code slots} ranks, one {@code Train} activity per worker process
 * on the pool's queue. The workflow fixes each rank's number and the world size, so a replay makes
 * the same gang; rank 0's store address reaches the other ranks through {@link GangRendezvous},
 * handed out only once every rank has started, so ranks waiting for slots never run into a
 * collective timeout.
 *
 * <p>When a rank fails, the others fail within the collective timeout (their peer is gone), and the
 * whole gang starts again from rank 0's last checkpoint under a new gang id, which counts as one
 * restart. When rank 0 succeeded the step is done whatever happened to the others: every collective
 * had completed. A failure the input caused (bad hyperparameters, ranks that disagree) ends the
 * step without restarts.
 */
public final class GangTraining implements GangRendezvous {
  private final Map<String, Rendezvous> rendezvous = new HashMap<>();
  private final Map<String, TreeMap<Integer, RankInfo>> started = new HashMap<>();
  private final Map<String, Integer> worldSizes = new HashMap<>();
  private final Set<String> abandoned = new HashSet<>();
  private static final Duration MIN_FORMATION = Duration.ofSeconds(5);
  private final Consumer<String> waiting;
  private int gangs;
  private String current;

  /**
   * Registers the rendezvous signal and query on the calling workflow.
   *
   * @param waiting told why training is not running yet ("waiting for 2 slots …"), and "" once it
   *     runs
   */
  public static GangTraining register(Consumer<String> waiting) {
    GangTraining gang = new GangTraining(waiting);
    Workflow.registerListener(gang);
    return gang;
  }

  private GangTraining(Consumer<String> waiting) {
    this.waiting = waiting;
  }

  /**
   * The outcome: rank 0's result with {@code attempt} = gang starts and {@code ranks}, or the
   * failure.
   */
  public TrainResult train(
      TrainRequest request,
      int slots,
      String pool,
      Duration heartbeat,
      int restartsLeft,
      String summary) {
    TrainRequest next = request;
    List<CheckpointRef> writtenByFailedGangs = new ArrayList<>();
    int restarts = 0;
    while (true) {
      String gangId = Workflow.getInfo().getWorkflowId() + "/gang-" + (++gangs);
      current = gangId;
      started.put(gangId, new TreeMap<>());
      worldSizes.put(gangId, slots);
      report(gangId);
      List<Promise<TrainResult>> ranks = new ArrayList<>();
      TrainRequest attempt = next;
      CancellationScope scope =
          Workflow.newCancellationScope(
              () -> ranks.addAll(start(attempt, gangId, slots, pool, heartbeat, summary)));
      scope.run();
      Duration formation = formationTimeout(heartbeat);
      if (!Workflow.await(formation, () -> formed(gangId) || ranks.get(0).isCompleted())) {
        // Gangs that each hold some of the pool's workers would wait for each other forever: give
        // the
        // slots back and try again after a pause that differs per gang, so one of them forms first.
        // Not a restart.
        abandoned.add(gangId);
        scope.cancel("gang " + gangId + " did not form within " + formation.toSeconds() + " s");
        Workflow.await(() -> ranks.stream().allMatch(Promise::isCompleted));
        waiting.accept(
            "waiting for "
                + slots
                + " slots (gang "
                + gangs
                + " did not form within "
                + formation.toSeconds()
                + " s; trying again)");
        Workflow.sleep(pause(gangId, formation));
        continue;
      }
      Workflow.await(
          () -> ranks.get(0).isCompleted() || ranks.stream().allMatch(Promise::isCompleted));
      waiting.accept("");
      ActivityFailure failure = failureOf(ranks.get(0));
      if (failure == null) {
        TrainResult result = ranks.get(0).get();
        List<CheckpointRef> periodic = new ArrayList<>(writtenByFailedGangs);
        periodic.addAll(result.getPeriodicCheckpointsList());
        return result.toBuilder()
            .setAttempt(restarts + 1)
            .clearPeriodicCheckpoints()
            .addAllPeriodicCheckpoints(periodic)
            .clearRanks()
            .addAllRanks(started.get(gangId).values())
            .build();
      }
      // rank 0 failed: the others cannot finish without it; wait until they stopped too
      abandoned.add(gangId);
      Workflow.await(() -> ranks.stream().allMatch(Promise::isCompleted));
      List<CheckpointRef> written = TrainingFailures.writtenBeforeFailure(failure);
      writtenByFailedGangs.addAll(written);
      ActivityFailure cause = mostTelling(ranks);
      ApplicationFailure app = TrainingFailures.applicationFailure(cause);
      if ((app != null && TrainingActivityOptions.isPermanent(app.getType()))
          || restarts >= restartsLeft) {
        throw cause;
      }
      restarts++;
      if (!written.isEmpty()) {
        next = next.toBuilder().setStartFrom(written.get(written.size() - 1)).build();
      }
      Workflow.getLogger(GangTraining.class)
          .warn(
              "gang {} failed ({}); restart {} of {} from {}",
              gangId,
              app != null ? app.getOriginalMessage() : cause.getMessage(),
              restarts,
              restartsLeft,
              next.hasStartFrom() ? next.getStartFrom().getUri() : "scratch");
    }
  }

  /**
   * Long enough for workers to load their data and libtorch; a gang that takes longer is waiting
   * for slots.
   */
  static Duration formationTimeout(Duration heartbeat) {
    Duration twice = heartbeat.multipliedBy(2);
    return twice.compareTo(MIN_FORMATION) < 0 ? MIN_FORMATION : twice;
  }

  /**
   * Up to half the formation timeout, different for every gang of every workflow (so colliding
   * gangs part) and the same on replay: a function of the gang id, no random generator.
   */
  static Duration pause(String gangId, Duration formation) {
    long spread = formation.toMillis() / 2 + 1;
    return Duration.ofMillis(Math.floorMod(gangId.hashCode() * 0x9E3779B97F4A7C15L, spread));
  }

  private boolean formed(String gangId) {
    return rendezvous.containsKey(gangId) && started.get(gangId).size() == worldSizes.get(gangId);
  }

  private List<Promise<TrainResult>> start(
      TrainRequest request,
      String gangId,
      int slots,
      String pool,
      Duration heartbeat,
      String summary) {
    // A failed rank does not cancel the others: rank 0 must report the checkpoints it wrote, and
    // the others stop on their own within the collective timeout once a peer is gone.
    List<Promise<TrainResult>> ranks = new ArrayList<>();
    for (int r = 0; r < slots; r++) {
      TrainingActivities rank =
          Workflow.newActivityStub(
              TrainingActivities.class,
              TrainingActivityOptions.forGangRank(
                  pool, heartbeat, summary + " (rank " + r + " of " + slots + ")"));
      TrainRequest mine =
          request.toBuilder()
              .setGang(
                  GangSpec.newBuilder()
                      .setRank(r)
                      .setWorldSize(slots)
                      .setGangId(gangId)
                      .setTimeoutSeconds((int) heartbeat.toSeconds()))
              .build();
      ranks.add(Async.function(rank::train, mine));
    }
    return ranks;
  }

  /** A failure the input caused if any rank reports one, else rank 0's. */
  private static ActivityFailure mostTelling(List<Promise<TrainResult>> ranks) {
    for (Promise<TrainResult> p : ranks) {
      ActivityFailure f = failureOf(p);
      ApplicationFailure app = f == null ? null : TrainingFailures.applicationFailure(f);
      if (app != null && TrainingActivityOptions.isPermanent(app.getType())) {
        return f;
      }
    }
    return failureOf(ranks.get(0));
  }

  private static ActivityFailure failureOf(Promise<TrainResult> p) {
    RuntimeException f = p.getFailure();
    if (f == null) {
      return null;
    }
    if (f instanceof ActivityFailure a) {
      return a;
    }
    throw f; // cancellation of the whole trial, or a bug: not a rank's failure
  }

  private void report(String gangId) {
    int size = worldSizes.get(gangId);
    int joined = started.get(gangId).size();
    waiting.accept(
        joined < size
            ? "waiting for " + size + " slots (" + joined + " of " + size + " ranks started)"
            : "");
  }

  @Override
  public void rankStarted(RankStarted s) {
    TreeMap<Integer, RankInfo> ranks = started.get(s.getGangId());
    if (ranks == null) {
      return; // a rank of a gang this workflow never started (or a stale one): nothing to record
    }
    ranks.put(s.getRank().getRank(), s.getRank());
    if (s.hasRendezvous()) {
      rendezvous.put(s.getGangId(), s.getRendezvous());
    }
    report(s.getGangId());
  }

  @Override
  public Rendezvous rendezvous(String gangId) {
    if (abandoned.contains(gangId) || !started.containsKey(gangId)) {
      return Rendezvous.newBuilder().setGangId(gangId).setAbandoned(true).build();
    }
    TreeMap<Integer, RankInfo> ranks = started.get(gangId);
    Rendezvous r = rendezvous.get(gangId);
    if (ranks == null || r == null || ranks.size() < worldSizes.get(gangId)) {
      return Rendezvous.getDefaultInstance();
    }
    return r;
  }

  /** The ranks of the gang that trains now, or trained last. */
  public List<RankInfo> currentRanks() {
    return current == null ? List.of() : List.copyOf(started.get(current).values());
  }
}
