package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A table version that does not exist, a version without rows, a split the version does not hold, a
 * missing checkpoint and a request without a predictions table are each refused at once (no retry,
 * no activity attempt after the first) with a message naming the thing, and write nothing.
 */
class BadInferenceInputIsRefusedNamingItTest {
  private InferenceTestBed bed;
  private int runs;

  @BeforeEach
  void start() throws Exception {
    bed = new InferenceTestBed();
  }

  @AfterEach
  void stop() {
    bed.close();
  }

  @Test
  void aVersionThatDoesNotExist() {
    TableRef missing = InferenceTestBed.source().toBuilder().setVersion(7).build();
    refused(
        bed.request("bad").setData(missing).build(),
        FailureTypes.INVALID_INFERENCE_REQUEST,
        "has no version 7");
  }

  @Test
  void aVersionWithoutRows() throws Exception {
    String empty = TestDirs.create("empty-table").resolve("t").toUri().toString();
    long v = new DeltaTableWriter(empty, TableSchemas.LABELED_IMAGES).append();
    refused(
        bed.request("bad").setData(TableRef.newBuilder().setUri(empty).setVersion(v)).build(),
        FailureTypes.INVALID_INFERENCE_REQUEST,
        "table " + DeltaTables.displayUri(empty) + " v" + v + " holds no rows");
  }

  @Test
  void aSplitTheVersionDoesNotHold() {
    refused(
        bed.request("bad").setSplit("validation").build(),
        FailureTypes.INVALID_INFERENCE_REQUEST,
        "split 'validation' has no rows in table");
  }

  @Test
  void aMissingCheckpoint() throws Exception {
    Path nowhere = TestDirs.create("no-checkpoint").resolve("gone");
    var checkpoint =
        InferenceTestBed.checkpoint().toBuilder().setUri(nowhere.toUri().toString()).build();
    refused(
        bed.request("bad").setCheckpoint(checkpoint).build(),
        FailureTypes.CORRUPT_CHECKPOINT,
        nowhere.toString());
  }

  @Test
  void noPredictionsTable() {
    refused(
        bed.request("").build(),
        FailureTypes.INVALID_INFERENCE_REQUEST,
        "predictions_table_uri: required");
  }

  private void refused(InferenceRequest request, String type, String named) {
    String id = "bad-" + (++runs);
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> bed.run(id, request));
    Throwable c = e;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    ApplicationFailure failure = (ApplicationFailure) c;
    assertEquals(type, failure.getType(), failure.toString());
    assertTrue(failure.isNonRetryable(), failure.toString());
    assertTrue(failure.getOriginalMessage().contains(named), failure.getOriginalMessage());
    assertFalse(failure.getOriginalMessage().contains("\n\tat "), "one message, no stack trace");
    long attempts =
        bed.client.fetchHistory(id).getEvents().stream()
            .filter(ev -> ev.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
            .mapToInt(ev -> ev.getActivityTaskStartedEventAttributes().getAttempt())
            .max()
            .orElse(0);
    assertTrue(attempts <= 1, "refused without a retry (attempt " + attempts + ")");
    assertTrue(
        DeltaTables.latestVersion(DeltaTables.defaultEngine(), bed.table("bad")).isEmpty(),
        "nothing written");
  }
}
