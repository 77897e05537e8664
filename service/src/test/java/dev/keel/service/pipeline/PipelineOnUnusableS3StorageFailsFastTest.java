package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineStage;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A storage root the workers cannot use (here: its bucket does not exist) fails the pipeline at
 * once with one line naming the URI; the activity is not retried.
 */
@ExtendWith(S3ProxyExtension.class)
class PipelineOnUnusableS3StorageFailsFastTest {
  private static final String ROOT =
      "s3://keel-missing-bucket-" + UUID.randomUUID().toString().substring(0, 8) + "/keel";
  private static LoopbackTemporalServer server;
  private static KeelWorkerHost workers;

  @BeforeAll
  static void startStack() {
    server = LoopbackTemporalServer.start(0);
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(StorageRoot.of(ROOT))
                .optDevServer(true)
                .build());
  }

  @AfterAll
  static void stopStack() {
    workers.close();
    server.close();
  }

  @Test
  void missingBucketFailsTheEtlStageOnceWithOneLine() throws Exception {
    PipelineRequest.Builder request =
        DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), 10).toBuilder();
    String id = "s3-unusable-" + UUID.randomUUID();
    PipelineWorkflow pipeline =
        workers
            .client()
            .newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build());
    long t0 = System.nanoTime();
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> pipeline.run(request.build()));
    assertTrue(System.nanoTime() - t0 < 30_000_000_000L, "failed fast");

    ActivityFailure activity = (ActivityFailure) e.getCause();
    ApplicationFailure cause = (ApplicationFailure) activity.getCause();
    assertEquals(FailureTypes.STORAGE_UNUSABLE, cause.getType());
    assertTrue(cause.isNonRetryable());
    assertEquals(
        "storage " + ROOT + "/tables/fashion_mnist: the bucket does not exist",
        cause.getOriginalMessage());
    assertFalse(cause.getOriginalMessage().contains("\n"));

    long attempts =
        workers.client().fetchHistory(id).getEvents().stream()
            .filter(ev -> ev.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
            .count();
    assertEquals(1, attempts, "a non-retryable failure is not retried");
    PipelineProgress progress = pipeline.progress();
    assertEquals(
        "storage " + ROOT + "/tables/fashion_mnist: the bucket does not exist",
        progress.getError());
    assertEquals(FailureTypes.STORAGE_UNUSABLE, progress.getErrorType());
    assertEquals(PipelineStage.etl, progress.getFailedStage());
    // keel status: the message as written (no Java toString, no JSON escapes), its type and stage
    String status = PipelineStatusText.render(id, progress);
    assertTrue(status.startsWith("pipeline " + id + ": failed in stage etl\n"), status);
    assertTrue(
        status.contains(
            "  error:      storage " + ROOT + "/tables/fashion_mnist: the bucket does not exist\n"),
        status);
    assertTrue(status.contains("  type:       " + FailureTypes.STORAGE_UNUSABLE + "\n"), status);
  }
}
