package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.InferenceResult;
import dev.keel.tables.DeltaTables;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A run whose partition fails for good ends with that partition's error, leaves the predictions
 * table at the version it had (none, or the previous run's) and deletes its staged files; a run
 * terminated while partitions are being scored commits nothing either.
 */
class FailedOrKilledInferenceRunLeavesNoPredictionsVersionTest {

  @Test
  void aPartitionFailingForGoodFailsTheRunWithoutAVersionAndCleansItsFiles() throws Exception {
    try (InferenceTestBed bed =
        new InferenceTestBed(
            (request, attempt) -> {
              if (request.getPartition().getIndex() == 3 && breakPartition3) {
                throw ApplicationFailure.newNonRetryableFailure(
                    "image decoder broke on partition 3", "TestFailure");
              }
            })) {
      // a first, good run makes version 0
      String table = bed.table("failing");
      InferenceResult good = bed.run("good", bed.request("failing").build());
      try (Stream<Path> staged = Files.list(runDirectory(table, good.getRunId()))) {
        assertEquals(
            InferenceTestBed.PARTITIONS,
            staged.count(),
            "a committed run's files stay where they were staged, one directory per partition");
      }
      breakPartition3 = true;
      assertEquals(0, good.getPredictions().getVersion());

      WorkflowFailedException e =
          assertThrows(
              WorkflowFailedException.class, () -> bed.run("bad", bed.request("failing").build()));
      ApplicationFailure cause = (ApplicationFailure) e.getCause().getCause();
      assertEquals("image decoder broke on partition 3", cause.getOriginalMessage());
      assertEquals(
          0,
          DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).getAsLong(),
          "the failed run added no version");
      assertEquals(InferenceTestBed.TEST_ROWS, InferenceTestBed.rows(table).size());
      String badRun =
          WorkflowStub.fromTyped(bed.existing("bad")).describe().getExecution().getRunId();
      assertFalse(
          Files.exists(runDirectory(table, badRun)), "the failed run's staged files are deleted");
      assertEquals(InferenceProgress.Stage.failed, bed.existing("bad").progress().getStage());
    }
  }

  private volatile boolean breakPartition3;

  @Test
  void aRunTerminatedWhileScoringCommitsNothing() throws Exception {
    CountDownLatch scoring = new CountDownLatch(1);
    CountDownLatch terminated = new CountDownLatch(1);
    try (InferenceTestBed bed =
        new InferenceTestBed(
            (request, attempt) -> {
              if (request.getPartition().getIndex() == 1) {
                scoring.countDown();
                try {
                  terminated.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                  Thread.currentThread().interrupt();
                }
              }
            })) {
      String table = bed.table("killed");
      WorkflowClient.start(bed.workflow("killed")::run, bed.request("killed").build());
      assertTrue(scoring.await(60, TimeUnit.SECONDS), "partition 1 was being scored");
      WorkflowStub stub = bed.client.newUntypedWorkflowStub("killed");
      String details =
          stub.query("__temporal_workflow_metadata", WorkflowMetadata.class).getCurrentDetails();
      assertTrue(
          details.matches("Keel inference: scored [01] of 5 partitions \\(\\d+ of 2000 rows\\)"),
          details);
      stub.terminate("killed mid-run by the test");
      terminated.countDown();
      assertThrows(WorkflowFailedException.class, () -> stub.getResult(InferenceResult.class));
      assertTrue(
          DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).isEmpty(),
          "no predictions table version exists");
    }
  }

  private static Path runDirectory(String table, String runId) {
    return Path.of(URI.create(InferenceActivitiesImpl.runDirectory(table, runId)));
  }
}
