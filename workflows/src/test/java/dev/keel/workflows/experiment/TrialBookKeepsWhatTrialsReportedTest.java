package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialState;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The experiment's record of its trials, fed by their reports; no Temporal needed. */
class TrialBookKeepsWhatTrialsReportedTest {
  private final CatalogBuffer catalog = new CatalogBuffer("exp", null, 1000, () -> 42L);
  private final TrialBook book = new TrialBook(true);

  private static TrialState.Builder trial(long id, long target) {
    return TrialState.newBuilder()
        .setTrialId(id)
        .setWorkflowId("exp/trial-" + id)
        .setState(TrialState.State.ACTIVE)
        .setTargetLength(TrainingLength.batches(target).toProto())
        .setCompletedLength(TrainingLength.batches(0).toProto());
  }

  private static TrialReport validation(long id, long batches, double metric) {
    return TrialReport.newBuilder()
        .setTrialId(id)
        .setValidation(
            TrialReport.Validation.newBuilder()
                .setLength(TrainingLength.batches(batches).toProto())
                .setMetric(metric)
                .putMetrics("loss", metric)
                .setCheckpoint(
                    CheckpointRef.newBuilder().setUuid(id + "-" + batches).setBatches(batches)))
        .build();
  }

  private static TrialReport exit(long id, TrialReport.Exit.Reason reason) {
    return TrialReport.newBuilder()
        .setTrialId(id)
        .setExit(TrialReport.Exit.newBuilder().setReason(reason))
        .build();
  }

  private static TrialReport closed(long id) {
    return TrialReport.newBuilder()
        .setTrialId(id)
        .setClosed(TrialReport.Closed.getDefaultInstance())
        .build();
  }

  @Test
  void aValidationRecordsLengthMetricAndACheckpointKeyedForGcAndWarmStarts() {
    book.add(trial(1, 8));
    book.record(validation(1, 8, 0.5), catalog);
    TrialState t = book.snapshot().get(0);
    assertEquals(8, t.getCompletedLength().getBatches());
    assertEquals(0.5, t.getBestMetric());
    CheckpointRef c = t.getLatestCheckpoint();
    assertEquals(0.5, c.getMetricsOrThrow(CheckpointMetrics.SEARCHER_METRIC));
    assertEquals(8.0, c.getMetricsOrThrow(CheckpointMetrics.LENGTH));
    assertEquals(
        List.of("metrics", "checkpoints"),
        catalog.pending().stream().map(CatalogRow::getKind).toList());
    assertTrue(catalog.pending().stream().allMatch(r -> r.getTimeMillis() == 42L));
  }

  @Test
  void anExitEndsTheTrialInTheStateItsReasonLeadsTo() {
    book.add(trial(1, 8));
    book.add(trial(2, 8));
    book.add(trial(3, 8));
    book.record(exit(1, TrialReport.Exit.Reason.USER_STOPPED), catalog);
    book.record(exit(2, TrialReport.Exit.Reason.INVALID_HP), catalog);
    book.record(exit(3, TrialReport.Exit.Reason.ERRORED), catalog);
    assertEquals(
        List.of(TrialState.State.KILLED, TrialState.State.INVALID_HP, TrialState.State.ERRORED),
        book.snapshot().stream().map(TrialState::getState).toList());
    assertTrue(book.allEnded());
    assertEquals(Optional.empty(), book.listening(1), "an ended trial takes no more commands");
    assertEquals(
        List.of("KILLED", "INVALID_HP", "ERRORED"),
        catalog.pending().stream()
            .filter(r -> r.getKind().equals("trials"))
            .map(CatalogRow::getState)
            .toList());
  }

  @Test
  void aTieGoesToTheLongerTrainedCheckpointThenTheLowerTrialWhateverOrderTheReportsCameIn() {
    book.add(trial(1, 8));
    book.add(trial(2, 8));
    book.add(trial(3, 16));
    book.record(validation(2, 8, 0.3), catalog);
    book.record(validation(1, 8, 0.3), catalog);
    assertEquals(0.3, book.bestMetric().getAsDouble());
    assertEquals(
        1, book.bestTrialId(), "trial 2 reached 0.3 first, but the tie goes to the lower trial");
    book.record(validation(3, 12, 0.3), catalog);
    assertEquals(3, book.bestTrialId(), "trained longer");
    assertEquals("3-12", book.bestCheckpoint().orElseThrow().getUuid());
    book.record(validation(1, 16, 0.2), catalog);
    assertEquals(1, book.bestTrialId());
    assertEquals("1-16", book.bestCheckpoint().orElseThrow().getUuid());
  }

  @Test
  void aForkStartsFromItsParentsLastCheckpointAtOrBeforeTheInheritedLength() {
    book.add(trial(1, 30));
    book.record(validation(1, 10, 0.9), catalog);
    book.record(validation(1, 20, 0.8), catalog);
    book.record(validation(1, 30, 0.7), catalog);
    assertEquals("1-20", book.checkpointAt(1, TrainingLength.batches(25)).orElseThrow().getUuid());
    assertEquals(Optional.empty(), book.checkpointAt(1, TrainingLength.batches(5)));
    assertEquals(
        Optional.empty(), book.checkpointAt(7, TrainingLength.batches(30)), "no such parent");
  }

  @Test
  void aTrialIsBusyWhileShortOfItsTargetOrAskedToClose() {
    book.add(trial(1, 8));
    assertTrue(book.anyBusy());
    book.record(validation(1, 8, 0.5), catalog);
    assertFalse(book.anyBusy(), "idle at its target, waiting for the searcher");
    book.closing(1);
    assertTrue(book.anyBusy());
    book.record(closed(1), catalog);
    assertFalse(book.anyBusy());
    assertEquals(TrialState.State.COMPLETED, book.snapshot().get(0).getState());
  }

  @Test
  void reportsOfTrialsItNeverStartedChangeNothing() {
    book.record(validation(9, 8, 0.1), catalog);
    assertTrue(book.snapshot().isEmpty());
    assertTrue(book.bestMetric().isEmpty());
    assertTrue(catalog.pending().isEmpty());
  }

  @Test
  void carriedTrialsComeBackWithTheCheckpointsThatTellTheBest() {
    book.add(trial(1, 8));
    book.record(validation(1, 8, 0.5), catalog);
    TrialBook next = new TrialBook(true);
    next.restore(book.snapshot());
    assertEquals(book.snapshot(), next.snapshot());
    assertEquals(0.5, next.bestMetric().getAsDouble());
    assertEquals(1, next.bestTrialId());
  }
}
