package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run started for one storage root and picked up by a worker that serves another fails at its
 * first activity, without retries, naming both roots; nothing is written under either. The root
 * travels in the header of every workflow and activity of the run, so the same holds for the
 * pipeline's children.
 */
class RunOnAnotherStorageRootIsRefusedByTheWorkerNamingBothTest {
  private static LoopbackTemporalServer server;
  private static KeelWorkerHost workers;
  private static Path served;
  private static Path other;

  @BeforeAll
  static void startStack() throws Exception {
    served = TestDirs.create("served-root");
    other = TestDirs.create("other-root");
    server = LoopbackTemporalServer.start(0);
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(StorageRoot.of(served.toString()))
                .optDevServer(true)
                .build());
  }

  @AfterAll
  static void stopStack() {
    workers.close();
    server.close();
  }

  @Test
  void theEtlStageFailsOnceNamingTheRunsRootAndTheWorkersRoot() throws Exception {
    PipelineRequest request = DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), 10);
    StorageRoot runRoot = StorageRoot.of(other.toString());
    WorkflowClient client = KeelWorkerHost.client(workers.stubs(), "default", runRoot);
    String id = "other-root-" + UUID.randomUUID();
    PipelineWorkflow pipeline =
        client.newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .build());

    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> pipeline.run(request));
    ApplicationFailure cause = (ApplicationFailure) ((ActivityFailure) e.getCause()).getCause();
    assertEquals(FailureTypes.STORAGE_ROOT_MISMATCH, cause.getType());
    assertTrue(cause.isNonRetryable());
    String message = cause.getOriginalMessage();
    assertTrue(
        message.startsWith(
            "activity Ingest of "
                + id
                + " belongs to storage root "
                + runRoot
                + ", but the worker that picked it up serves "
                + StorageRoot.of(served.toString())),
        message);
    assertTrue(message.contains("--storage " + runRoot), message);
    assertFalse(message.contains("\n"));

    long attempts =
        client.fetchHistory(id).getEvents().stream()
            .filter(ev -> ev.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
            .count();
    assertEquals(1, attempts, "refused once, not retried");
    assertFalse(Files.exists(served.resolve("tables")), "nothing written under the worker's root");
    assertFalse(Files.exists(other.resolve("tables")), "nor under the run's");
  }

  @Test
  void aRunOnTheWorkersOwnRootPassesTheCheck() throws Exception {
    // the same worker, a client naming its root: the first activity runs (and the ETL writes the
    // table)
    PipelineRequest request =
        DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), 10).toBuilder()
            .setTargetTable("same_root")
            .build();
    WorkflowClient client =
        KeelWorkerHost.client(workers.stubs(), "default", StorageRoot.of(served.toString() + "/"));
    String id = "same-root-" + UUID.randomUUID();
    PipelineWorkflow pipeline =
        client.newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .build());
    WorkflowClient.start(pipeline::run, request);
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!Files.exists(served.resolve("tables/same_root/_delta_log"))
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertTrue(
        Files.exists(served.resolve("tables/same_root/_delta_log")),
        "the ETL ran on the worker's root");
    client.newUntypedWorkflowStub(id).terminate("test done");
  }
}
