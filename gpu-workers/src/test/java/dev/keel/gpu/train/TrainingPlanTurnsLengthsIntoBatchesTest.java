package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.InvalidFieldException;
import org.junit.jupiter.api.Test;

/** Lengths in any unit become batches of the worker's batch size and training rows. */
class TrainingPlanTurnsLengthsIntoBatchesTest {
  /** 60,000 rows with 1/12 held out leave 55,000 to train on: 430 batches of 128 per epoch. */
  private static final long TRAINING_ROWS = 55_000;

  @Test
  void targetInEpochsBecomesBatchesOnTopOfTheBase() {
    TrainRequest r =
        resolve(
            TrainRequest.newBuilder()
                .setTargetLength(Length.newBuilder().setEpochs(2))
                .setBaseBatches(100));
    assertEquals(100 + 2 * 430, r.getTargetBatches());
    assertFalse(r.hasTargetLength());
  }

  @Test
  void checkpointPeriodInRecordsBecomesWholeBatches() {
    TrainRequest r =
        resolve(
            TrainRequest.newBuilder()
                .setTargetLength(Length.newBuilder().setBatches(50))
                .setCheckpointPeriod(Length.newBuilder().setRecords(1000)));
    assertEquals(50, r.getTargetBatches());
    assertEquals(8, r.getCheckpointEveryBatches());
    assertFalse(r.hasCheckpointPeriod());
  }

  @Test
  void aRequestInBatchesAlreadyIsLeftAlone() {
    TrainRequest r =
        TrainRequest.newBuilder().setTargetBatches(30).setCheckpointEveryBatches(10).build();
    assertEquals(r, TrainingPlan.resolveLengths(r, 128, TRAINING_ROWS));
  }

  @Test
  void aLengthWithoutUnitOrCountIsAnInvalidField() {
    InvalidFieldException noUnit =
        assertThrows(
            InvalidFieldException.class,
            () -> resolve(TrainRequest.newBuilder().setTargetLength(Length.getDefaultInstance())));
    assertEquals("target_length", noUnit.field());
    InvalidFieldException zero =
        assertThrows(
            InvalidFieldException.class,
            () ->
                resolve(
                    TrainRequest.newBuilder()
                        .setTargetBatches(5)
                        .setCheckpointPeriod(Length.newBuilder().setEpochs(0))));
    assertEquals("checkpoint_period.epochs", zero.field());
  }

  private static TrainRequest resolve(TrainRequest.Builder r) {
    return TrainingPlan.resolveLengths(r.build(), 128, TRAINING_ROWS);
  }
}
