package dev.keel.gpu.train;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrainResult;
import java.util.Map;

/**
 * The result of {@link Trainer#run()}; {@code checkpoint} is null on ranks other than 0, which
 * write none.
 */
public record TrainingOutcome(
    CheckpointRef checkpoint,
    Map<String, Double> validationMetrics,
    long batches,
    double finalLoss,
    double seconds) {

  public TrainResult toProto() {
    TrainResult.Builder b = TrainResult.newBuilder();
    if (checkpoint != null) {
      b.setCheckpoint(checkpoint);
    }
    return b.putAllValidationMetrics(validationMetrics)
        .setBatches(batches)
        .setFinalLoss(finalLoss)
        .setSeconds(seconds)
        .build();
  }
}
