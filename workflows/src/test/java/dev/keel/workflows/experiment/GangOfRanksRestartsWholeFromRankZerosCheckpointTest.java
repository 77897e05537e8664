package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.Rendezvous;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.testing.FakeRank;
import dev.keel.workflows.testing.KeelTestEnvironments;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The workflow side of {@code slots_per_trial > 1}: every rank of a gang gets its number, the world
 * size and one gang id; the rendezvous reaches the ranks only once all started (until then the
 * trial says it waits for slots); a failed gang restarts whole from rank 0's last checkpoint under
 * a new id; a mismatch between ranks is not retried. The ranks here play the rendezvous for real
 * through the workflow's signal and query; what they compute is a stand-in.
 */
class GangOfRanksRestartsWholeFromRankZerosCheckpointTest {
  private static final String CONFIG =
      """
      name: gang
      data: {table: formula}
      hyperparameters:
        lr: {type: const, val: 0.01}
        batch_size: {type: const, val: 64}
      searcher: {name: single, metric: validation_loss, smaller_is_better: true, max_length: {batches: 8}}
      resources: {slots_per_trial: 2}
      max_restarts: 2
      """;

  private final List<TrainRequest> requests = Collections.synchronizedList(new ArrayList<>());

  /** Counts down once per gang id the ranks see: zero at the third gang. */
  private final CountDownLatch thirdGang = new CountDownLatch(3);

  private final Set<String> gangsSeen = ConcurrentHashMap.newKeySet();
  private TestWorkflowEnvironment env;

  @AfterEach
  void stop() {
    env.close();
  }

  /**
   * A rank: signals that it started (rank 0 with its address), waits for the rendezvous, then
   * {@code body}.
   */
  private final class Rank implements TrainingActivities {
    private final BiFunction<TrainRequest, Rendezvous, TrainResult> body;

    Rank(BiFunction<TrainRequest, Rendezvous, TrainResult> body) {
      this.body = body;
    }

    @Override
    public TrainResult train(TrainRequest r) {
      if (gangsSeen.add(r.getGang().getGangId())) {
        thirdGang.countDown();
      }
      requests.add(r);
      return body.apply(r, FakeRank.join(r));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(30, TimeUnit.SECONDS), "timed out");
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static TrainResult finished(TrainRequest r) {
    if (r.getGang().getRank() != 0) {
      return TrainResult.newBuilder().setBatches(8).build();
    }
    return TrainResult.newBuilder()
        .setBatches(8)
        .putValidationMetrics("validation_loss", 0.5)
        .setCheckpoint(checkpoint(r, 8))
        .build();
  }

  private static CheckpointRef checkpoint(TrainRequest r, long batches) {
    String uuid =
        r.getTrialId() + "-" + r.getGang().getGangId().replaceAll("\\W", "_") + "-" + batches;
    return CheckpointRef.newBuilder()
        .setUuid(uuid)
        .setUri("test://" + uuid)
        .setTrialId(r.getTrialId())
        .setExperimentId(r.getExperimentId())
        .setBatches(batches)
        .build();
  }

  private void start(TrainingActivities ranks) {
    start(ranks, 200);
  }

  /**
   * @param slots how many ranks the training pool runs at once (its workers' slots)
   */
  private void start(TrainingActivities ranks, int slots) {
    env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env);
    Worker train =
        env.newWorker(
            TaskQueues.train("cpu"),
            WorkerOptions.newBuilder().setMaxConcurrentActivityExecutionSize(slots).build());
    train.registerActivitiesImplementations(ranks);
    env.start();
  }

  private WorkflowClient client() {
    return env.getWorkflowClient();
  }

  private ExperimentResult run(String id) {
    ExperimentWorkflow wf =
        client()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build());
    return wf.run(
        ExperimentRequest.newBuilder()
            .setConfig(ExperimentTestSupport.config(CONFIG))
            .setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true))
            .build());
  }

  @Test
  void aFailedGangRestartsWholeFromRankZerosLastCheckpoint() {
    start(
        new Rank(
            (r, rv) -> {
              boolean firstGang = r.getGang().getGangId().endsWith("gang-1");
              if (firstGang && r.getGang().getRank() == 1) {
                throw new IllegalStateException("rank 1's worker crashed");
              }
              if (firstGang) {
                // rank 0 wrote a checkpoint at batch 4, then lost its peer
                throw ApplicationFailure.newBuilder()
                    .setMessage("peer closed the connection")
                    .setType("CollectiveException")
                    .setDetails(
                        TrainProgress.newBuilder().addWrittenCheckpoints(checkpoint(r, 4)).build())
                    .build();
              }
              return finished(r);
            }));
    ExperimentResult result = run("exp-gang-restart");

    TrialState trial = result.getState().getTrials(0);
    assertEquals(TrialState.State.COMPLETED, trial.getState(), trial.getError());
    assertEquals(1, trial.getRestarts(), "one gang restart");
    assertEquals(2, trial.getSlots());
    assertEquals(List.of(0, 1), trial.getRanksList().stream().map(RankInfo::getRank).toList());
    assertEquals("", trial.getWaiting());

    assertEquals(4, requests.size(), "two gangs of two ranks");
    List<String> gangs = requests.stream().map(q -> q.getGang().getGangId()).distinct().toList();
    assertEquals(2, gangs.size(), gangs.toString());
    for (TrainRequest q : requests) {
      assertEquals(2, q.getGang().getWorldSize());
      boolean second = q.getGang().getGangId().equals(gangs.get(1));
      assertEquals(second, q.hasStartFrom(), "only the restarted gang resumes: " + q);
      if (second) {
        assertEquals(4, q.getStartFrom().getBatches(), "from rank 0's last checkpoint");
      }
    }
    assertEquals(
        List.of(0, 1),
        requests.stream()
            .filter(q -> q.getGang().getGangId().equals(gangs.get(0)))
            .map(q -> q.getGang().getRank())
            .sorted()
            .toList());
    assertTrue(
        trial.getPeriodicCheckpointsList().stream().anyMatch(c -> c.getBatches() == 4),
        "the failed gang's checkpoint reaches the experiment (catalog, GC)");
    RecordedHistories.save(
        client(), TrialWorkflow.workflowId("exp-gang-restart", 1), "exp-gang-restart-trial-1");
  }

  @Test
  void twoGangsHoldingHalfThePoolEachGiveItBackAndBothFinish() {
    start(new Rank((r, rv) -> finished(r)), 2);
    ExperimentWorkflow wf =
        client()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("exp-gang-deadlock")
                    .build());
    ExperimentResult result =
        wf.run(
            ExperimentRequest.newBuilder()
                .setConfig(
                    ExperimentTestSupport.config(
                        CONFIG
                            .replace(
                                "lr: {type: const, val: 0.01}",
                                "lr: {type: categorical, vals: [0.01, 0.02]}")
                            .replace("name: single,", "name: grid, max_concurrent_trials: 2,")))
                .setOptions(
                    ExperimentRunOptions.newBuilder()
                        .setWithoutCatalog(true)
                        .setHeartbeatTimeoutSeconds(2))
                .build());

    assertEquals(2, result.getState().getTrialsCount());
    for (TrialState t : result.getState().getTrialsList()) {
      assertEquals(TrialState.State.COMPLETED, t.getState(), t.toString());
      assertEquals(0, t.getRestarts(), "a gang that never formed is not a restart: " + t);
    }
    long gangs = requests.stream().map(q -> q.getGang().getGangId()).distinct().count();
    System.out.println(
        "2 trials of 2 ranks on 2 slots: " + gangs + " gangs started for 2 that trained");
  }

  @Test
  void aGangThatCannotFormGivesItsSlotBackAndTriesAgainWithoutCountingARestart() throws Exception {
    start(new Rank((r, rv) -> finished(r)), 1); // one slot: rank 1 can never start next to rank 0
    ExperimentWorkflow wf =
        client()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("exp-gang-unformed")
                    .build());
    WorkflowClient.start(
        wf::run,
        ExperimentRequest.newBuilder()
            .setConfig(ExperimentTestSupport.config(CONFIG))
            .setOptions(
                ExperimentRunOptions.newBuilder()
                    .setWithoutCatalog(true)
                    .setHeartbeatTimeoutSeconds(2))
            .build());
    TrialWorkflow trial =
        client()
            .newWorkflowStub(TrialWorkflow.class, TrialWorkflow.workflowId("exp-gang-unformed", 1));
    assertTrue(
        thirdGang.await(60, TimeUnit.SECONDS),
        "no new gang after the formation timeout: " + requests);
    TrialState state = trial.state();
    assertEquals(0, state.getRestarts(), "a gang that never formed is not a restart");
    assertTrue(state.getWaiting().startsWith("waiting for 2 slots"), state.getWaiting());
    WorkflowStub.fromTyped(wf).terminate("test over");
  }

  @Test
  void ranksThatDisagreeEndTheTrialWithoutARestart() {
    CountDownLatch peerLeft = new CountDownLatch(1);
    start(
        new Rank(
            (r, rv) -> {
              if (r.getGang().getRank() == 1) {
                peerLeft.countDown();
                throw ApplicationFailure.newNonRetryableFailure(
                    "this rank and rank 0 would train different things: parameters '100' here, '101' there",
                    FailureTypes.GANG_MISMATCH);
              }
              await(peerLeft); // rank 0 fails once its peer has left
              throw ApplicationFailure.newFailure(
                  "peer closed the connection", "CollectiveException");
            }));
    ExperimentResult result = run("exp-gang-mismatch");

    TrialState trial = result.getState().getTrials(0);
    assertEquals(TrialState.State.ERRORED, trial.getState());
    assertTrue(trial.getError().contains("parameters '100' here, '101' there"), trial.getError());
    assertEquals(2, requests.size(), "no restart: " + requests);
  }

  @Test
  void aTrialWhoseRanksCannotAllStartSaysItWaitsForSlots() throws Exception {
    CountDownLatch slotFreed = new CountDownLatch(1);
    start(
        new TrainingActivities() {
          private final Rank rank = new Rank((r, rv) -> finished(r));

          @Override
          public TrainResult train(TrainRequest r) {
            if (r.getGang().getRank() == 1) {
              try {
                assertTrue(slotFreed.await(60, TimeUnit.SECONDS));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            }
            return rank.train(r);
          }
        });
    ExperimentWorkflow wf =
        client()
            .newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("exp-gang-wait")
                    .build());
    WorkflowClient.start(
        wf::run,
        ExperimentRequest.newBuilder()
            .setConfig(ExperimentTestSupport.config(CONFIG))
            .setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true))
            .build());
    TrialWorkflow trial =
        client().newWorkflowStub(TrialWorkflow.class, TrialWorkflow.workflowId("exp-gang-wait", 1));
    String waiting = "";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      try {
        waiting = trial.state().getWaiting();
        if (waiting.contains("1 of 2")) {
          break;
        }
      } catch (RuntimeException notStartedYet) {
        // the trial workflow does not exist yet
      }
      sleep(50); // the trial's state is only readable by query: poll it
    }
    assertEquals("waiting for 2 slots (1 of 2 ranks started)", waiting);
    slotFreed.countDown();
    ExperimentResult result =
        WorkflowStub.fromTyped(wf).getResult(60, TimeUnit.SECONDS, ExperimentResult.class);
    assertEquals(TrialState.State.COMPLETED, result.getState().getTrials(0).getState());
    assertEquals("", result.getState().getTrials(0).getWaiting());
    assertNotEquals(0, result.getState().getTrials(0).getRanksCount());
  }
}
