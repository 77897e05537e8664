package dev.keel.api.length;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.Length;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TrainingLengthTest {
  private static final TrainingLength FOUR_BATCHES = TrainingLength.batches(4);
  private static final TrainingLength THREE_EPOCHS = new TrainingLength(3, LengthUnit.EPOCHS);

  @Test
  void roundTripsThroughTheProtoMessageInEveryUnit() {
    for (LengthUnit unit : LengthUnit.values()) {
      TrainingLength length = new TrainingLength(7, unit);
      assertEquals(length, TrainingLength.of(length.toProto()));
    }
    assertEquals(
        Length.newBuilder().setRecords(640).build(),
        new TrainingLength(640, LengthUnit.RECORDS).toProto());
    assertEquals(
        Optional.of(LengthUnit.EPOCHS),
        TrainingLength.unitOf(Length.newBuilder().setEpochs(0).build()));
  }

  @Test
  void aMessageWithoutUnitHasNoLength() {
    assertEquals(Optional.empty(), TrainingLength.unitOf(Length.getDefaultInstance()));
    assertThrows(
        IllegalArgumentException.class, () -> TrainingLength.of(Length.getDefaultInstance()));
  }

  @Test
  void printsItsCountAndUnit() {
    assertEquals("4 batches", FOUR_BATCHES.toString());
    assertEquals("3 epochs", THREE_EPOCHS.toString());
    assertEquals("640 records", new TrainingLength(640, LengthUnit.RECORDS).toString());
  }

  @Test
  void addsComparesAndMinsWithinOneUnit() {
    assertEquals(TrainingLength.batches(10), FOUR_BATCHES.plus(TrainingLength.batches(6)));
    assertEquals(FOUR_BATCHES, FOUR_BATCHES.min(TrainingLength.batches(9)));
    assertEquals(FOUR_BATCHES, TrainingLength.batches(9).min(FOUR_BATCHES));
    assertEquals(TrainingLength.batches(9), FOUR_BATCHES.max(TrainingLength.batches(9)));
    assertTrue(FOUR_BATCHES.isShorterThan(TrainingLength.batches(5)));
    assertTrue(!FOUR_BATCHES.isShorterThan(FOUR_BATCHES));
    assertEquals(TrainingLength.batches(0), TrainingLength.zero(LengthUnit.BATCHES));
  }

  @Test
  void refusesToMixUnits() {
    assertThrows(IllegalArgumentException.class, () -> FOUR_BATCHES.plus(THREE_EPOCHS));
    assertThrows(IllegalArgumentException.class, () -> FOUR_BATCHES.min(THREE_EPOCHS));
    assertThrows(IllegalArgumentException.class, () -> FOUR_BATCHES.compareTo(THREE_EPOCHS));
    assertThrows(IllegalArgumentException.class, () -> new TrainingLength(-1, LengthUnit.BATCHES));
  }

  @Test
  void convertsToBatchesRoundingPartialBatchesUp() {
    assertEquals(4, FOUR_BATCHES.toBatches(55_000, 128));
    // 1000 records of 128 per batch: 7.8 batches train 8
    assertEquals(8, new TrainingLength(1000, LengthUnit.RECORDS).toBatches(55_000, 128));
    assertEquals(2, new TrainingLength(256, LengthUnit.RECORDS).toBatches(55_000, 128));
    // an epoch of 55,000 rows is 430 batches of 128 (the last one partial), so 3 epochs are 1290
    assertEquals(1290, THREE_EPOCHS.toBatches(55_000, 128));
    assertEquals(3 * 55, THREE_EPOCHS.toBatches(55_000, 1000));
    assertThrows(IllegalArgumentException.class, () -> FOUR_BATCHES.toBatches(100, 0));
  }

  @Test
  void reportsAMissingUnitOrANonPositiveCountAtItsPath() {
    assertEquals(
        Optional.of(
            new TrainingLength.Problem("searcher.max_length", "set one of batches|records|epochs")),
        TrainingLength.problem(Length.getDefaultInstance(), "searcher.max_length"));
    assertEquals(
        Optional.of(
            new TrainingLength.Problem("searcher.max_length.epochs", "must be > 0, got -2")),
        TrainingLength.problem(Length.newBuilder().setEpochs(-2).build(), "searcher.max_length"));
    assertEquals(
        Optional.of(
            new TrainingLength.Problem("min_checkpoint_period.batches", "must be > 0, got 0")),
        TrainingLength.problem(Length.newBuilder().setBatches(0).build(), "min_checkpoint_period"));
    assertEquals(
        Optional.empty(), TrainingLength.problem(Length.newBuilder().setRecords(1).build(), "x"));
  }
}
