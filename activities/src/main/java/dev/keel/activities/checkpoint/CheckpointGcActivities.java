package dev.keel.activities.checkpoint;

import dev.keel.api.v1.GcRequest;
import dev.keel.api.v1.GcResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Deletes checkpoints the experiment's GC policy no longer keeps. Runs on {@code keel-control}. */
@ActivityInterface
public interface CheckpointGcActivities {

  /** Deletes each listed checkpoint; one already gone counts as deleted (retries are safe). */
  @ActivityMethod(name = "CollectCheckpoints")
  GcResult collect(GcRequest request);
}
