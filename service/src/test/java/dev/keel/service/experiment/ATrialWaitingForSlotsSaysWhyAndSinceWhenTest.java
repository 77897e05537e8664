package dev.keel.service.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An experiment on a pool no worker serves (or too few for its gang) is accepted and then waits:
 * every reader of the experiment view (describe, wait's progress line, REST and the dashboard) must
 * say that its trials wait for slots of that pool, and since when, instead of only "ACTIVE … no
 * rank has trained yet".
 */
class ATrialWaitingForSlotsSaysWhyAndSinceWhenTest {
  private static LoopbackTemporalServer server;
  private static KeelWorkerHost workers;
  private static StorageRoot storage;

  @BeforeAll
  static void startStack() throws Exception {
    server = LoopbackTemporalServer.start(0);
    storage = StorageRoot.of(TestDirs.create("waits").toString());
    // a control worker only: no worker of any training pool
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(storage)
                .optRoles(Set.of(WorkerHostOptions.Role.CONTROL))
                .optDevServer(true)
                .build());
  }

  @AfterAll
  static void stopStack() {
    workers.close();
    server.close();
  }

  @Test
  void aTrialOnAPoolWithoutWorkersSaysItWaitsForASlotAndSince() throws Exception {
    Instant before = Instant.now().minusSeconds(1);
    String id = start("one-slot", 1);
    JsonNode view = awaitWaiting(id);
    JsonNode trial = view.path("trials").get(0);
    assertEquals(
        "waiting for a slot of pool nowhere: no worker polling "
            + TaskQueues.train("nowhere")
            + " has taken its step",
        trial.path("waiting").asText());
    Instant since = Instant.parse(trial.path("waiting_since").asText());
    assertTrue(!since.isBefore(before) && !since.isAfter(Instant.now()), "since " + since);
    assertEquals(1, view.path("experiment").path("waiting_trials").asInt());

    String described = ExperimentTable.render(ExperimentTable.state(view));
    assertTrue(
        described.contains("waiting for a slot of pool nowhere")
            && described.contains(" for ")
            && described.contains("(since " + since + ")"),
        described);

    ExperimentLauncher.stub(workers.client(), id).kill();
  }

  @Test
  void aGangShortOfWorkersSaysHowManyRanksStarted() throws Exception {
    String id = start("two-slots", 2);
    JsonNode trial = awaitWaiting(id).path("trials").get(0);
    assertEquals(
        "waiting for 2 slots of pool nowhere (0 of 2 ranks started)",
        trial.path("waiting").asText());
    ExperimentLauncher.stub(workers.client(), id).kill();
  }

  @Test
  void aTrialThatEndedWaitsForNothing() throws Exception {
    String id = start("killed", 1);
    awaitWaiting(id);
    ExperimentLauncher.stub(workers.client(), id).kill();
    ExperimentView views = new ExperimentView(workers.client(), storage);
    Poll.until(
        "the killed experiment to close",
        Duration.ofSeconds(30),
        () -> views.read(id).orElseThrow().ended());
    JsonNode view = views.read(id).orElseThrow().tree();
    assertFalse(view.path("trials").get(0).has("waiting"), view.toString());
    assertFalse(view.path("experiment").has("waiting_trials"), view.toString());
  }

  private static String start(String name, int slots) throws Exception {
    String id = "waits-" + name + "-" + System.nanoTime();
    WorkflowClient client = workers.client();
    ExperimentWorkflow wf =
        client.newWorkflowStub(
            ExperimentWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .build());
    WorkflowClient.start(
        wf::run,
        ExperimentRequest.newBuilder()
            .setConfig(
                ExperimentConfigLoaders.experimentLoader()
                    .fromYaml(
                        """
            name: %s
            data: {table: file:///nowhere/table, version: 0}
            hyperparameters: {batch_size: 64}
            searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 10}}
            resources: {resource_pool: nowhere, slots_per_trial: %d}
            """
                            .formatted(name, slots)))
            .setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true))
            .build());
    return id;
  }

  private static JsonNode awaitWaiting(String id) throws Exception {
    ExperimentView views = new ExperimentView(workers.client(), storage);
    return Poll.until(
        "trial 1 of " + id + " to be seen waiting",
        Duration.ofSeconds(30),
        () -> views.read(id).map(ExperimentView.Document::tree).orElse(null),
        v -> v != null && v.path("trials").size() == 1 && v.path("trials").get(0).has("waiting"));
  }
}
