package dev.keel.gpu.train;

import dev.keel.api.v1.CheckpointRef;
import java.util.Optional;

/**
 * Where a training run is, reported after every batch and after every checkpoint.
 *
 * @param loss mean training loss of the last (up to) 50 batches
 * @param batchesPerSecond over this run so far (checkpoint time included)
 */
public record TrainingProgress(
    long batches,
    long targetBatches,
    double loss,
    int epoch,
    Optional<CheckpointRef> lastCheckpoint,
    double batchesPerSecond,
    boolean checkpointJustWritten) {}
