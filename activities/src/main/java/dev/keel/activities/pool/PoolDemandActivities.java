package dev.keel.activities.pool;

import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolDemandRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * What Keel asks of a pool now; on {@code keel-control}, through the worker's own Temporal
 * connection.
 */
@ActivityInterface
public interface PoolDemandActivities {

  /**
   * One gang per trial of a running experiment on the pool that trains a step or waits to: its
   * slots, how many of its ranks a worker has started and where they run. Read-only.
   */
  @ActivityMethod(name = "ObservePoolDemand")
  PoolDemand observe(PoolDemandRequest request);
}
