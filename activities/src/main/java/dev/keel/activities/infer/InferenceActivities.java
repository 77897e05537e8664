package dev.keel.activities.infer;

import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Scores a table split with a checkpoint and writes a predictions Delta table. Runs on {@code keel-infer}. */
@ActivityInterface
public interface InferenceActivities {

  @ActivityMethod(name = "Score")
  InferenceResult score(InferenceRequest request);
}
