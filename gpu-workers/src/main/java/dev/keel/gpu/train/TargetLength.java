package dev.keel.gpu.train;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.InvalidFieldException;

/**
 * Turns a request's {@code target_length} and {@code checkpoint_period} (batches, records or
 * epochs) into {@code target_batches} and {@code checkpoint_every_batches}. Only the worker can: it
 * alone knows the model's batch size default and how many training rows the pinned table version
 * holds after the validation hold-out.
 */
final class TargetLength {
  private TargetLength() {}

  static boolean present(TrainRequest r) {
    return r.hasTargetLength() || r.hasCheckpointPeriod();
  }

  static TrainRequest resolve(TrainRequest r, int batchSize, int allTrainRows, double validationFraction) {
    long trainingRows = allTrainRows - Math.round(allTrainRows * validationFraction);
    TrainRequest.Builder b = r.toBuilder();
    if (r.hasTargetLength()) {
      long batches = batches("target_length", r.getTargetLength(), trainingRows, batchSize);
      b.clearTargetLength().setTargetBatches(r.getBaseBatches() + batches);
    }
    if (r.hasCheckpointPeriod()) {
      b.clearCheckpointPeriod().setCheckpointEveryBatches(
          batches("checkpoint_period", r.getCheckpointPeriod(), trainingRows, batchSize));
    }
    return b.build();
  }

  private static long batches(String field, Length length, long trainingRows, int batchSize) {
    TrainingLength.problem(length, field).ifPresent(p -> {
      throw new InvalidFieldException(p.path(), p.message());
    });
    long batches = TrainingLength.of(length).toBatches(trainingRows, batchSize);
    if (batches <= 0) {
      throw new InvalidFieldException(field, "must be > 0 batches, got " + TrainingLength.of(length)
          + " of " + trainingRows + " training rows");
    }
    return batches;
  }
}
