package dev.keel.gpu.train;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrainResult;
import java.util.Map;

/** The result of {@link Trainer#run()}. */
public record TrainingOutcome(
    CheckpointRef checkpoint,
    Map<String, Double> validationMetrics,
    long batches,
    double finalLoss,
    double seconds) {

  public TrainResult toProto() {
    return TrainResult.newBuilder()
        .setCheckpoint(checkpoint)
        .putAllValidationMetrics(validationMetrics)
        .setBatches(batches)
        .setFinalLoss(finalLoss)
        .setSeconds(seconds)
        .build();
  }
}
