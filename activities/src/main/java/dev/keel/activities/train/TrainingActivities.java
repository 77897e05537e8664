package dev.keel.activities.train;

import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Trains one trial on a {@code keel-train-<pool>} worker: from a checkpoint (or scratch) to a
 * length, heartbeating {@link dev.keel.api.v1.TrainProgress} with the last checkpoint.
 */
@ActivityInterface
public interface TrainingActivities {

  @ActivityMethod(name = "Train")
  TrainResult train(TrainRequest request);
}
