package dev.keel.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/**
 * Library code raises {@link KeelFailure}; an activity's body run through {@link ActivityBoundary}
 * raises Temporal's application failure of the same type, message and retryability, which the retry
 * policies and workflows read. Other exceptions pass through as they were.
 */
class ActivityBoundaryTurnsKeelFailuresIntoTemporalsTest {

  @Test
  void aNonRetryableFailureKeepsItsTypeAndMessage() {
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                ActivityBoundary.call(
                    () -> {
                      throw KeelFailure.nonRetryable(
                          "data.csv:7: 3 fields, the header has 4", FailureTypes.DATASET_CORRUPT);
                    }));
    assertEquals(FailureTypes.DATASET_CORRUPT, f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals("data.csv:7: 3 fields, the header has 4", f.getOriginalMessage());
  }

  @Test
  void aRetryableFailureStaysRetryableAndKeepsItsCause() {
    IOException io = new IOException("connection reset");
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () ->
                ActivityBoundary.run(
                    () -> {
                      throw KeelFailure.retryable("rank 1 stopped", "GangAbandoned", io);
                    }));
    assertEquals("GangAbandoned", f.getType());
    assertFalse(f.isNonRetryable());
    assertEquals("connection reset", f.getCause().getMessage());
  }

  @Test
  void otherExceptionsAndResultsPassUnchanged() {
    UncheckedIOException io = new UncheckedIOException(new IOException("disk full"));
    assertSame(
        io,
        assertThrows(
            UncheckedIOException.class,
            () ->
                ActivityBoundary.call(
                    () -> {
                      throw io;
                    })));
    assertEquals("ok", ActivityBoundary.call(() -> "ok"));
  }
}
