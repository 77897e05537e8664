package dev.keel.gpu.train;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.InvalidFieldException;

/**
 * Turns a {@code target_length} in batches, records or epochs into {@code target_batches}. Only the
 * worker can: it alone knows the model's batch size default and how many training rows the pinned
 * table version holds after the validation hold-out.
 */
final class TargetLength {
  private TargetLength() {}

  static TrainRequest resolve(TrainRequest r, int batchSize, int allTrainRows, double validationFraction) {
    if (!r.hasTargetLength()) {
      return r;
    }
    long trainingRows = allTrainRows - Math.round(allTrainRows * validationFraction);
    long batches = batches(r.getTargetLength(), trainingRows, batchSize);
    if (batches <= 0) {
      throw new InvalidFieldException("target_length", "must be > 0, got " + r.getTargetLength());
    }
    return r.toBuilder().clearTargetLength().setTargetBatches(r.getBaseBatches() + batches).build();
  }

  static long batches(Length length, long trainingRows, int batchSize) {
    return switch (length.getUnitCase()) {
      case BATCHES -> length.getBatches();
      case RECORDS -> ceilDiv(length.getRecords(), batchSize);
      case EPOCHS -> length.getEpochs() * ceilDiv(trainingRows, batchSize);
      case UNIT_NOT_SET -> 0;
    };
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
