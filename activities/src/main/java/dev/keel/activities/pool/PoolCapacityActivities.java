package dev.keel.activities.pool;

import dev.keel.api.v1.PoolInstances;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.ResizePoolRequest;
import dev.keel.api.v1.ResizePoolResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The machines of a pool, through the actuator its spec names (the Auto Scaling API or {@code tofu
 * apply}); on {@code keel-control}. A request the provider refuses fails without retries, type
 * {@code PoolProviderRefused}, with the provider's reason; an unreachable provider is retried a few
 * times ({@link PoolActivityOptions}).
 */
@ActivityInterface
public interface PoolCapacityActivities {

  /** The group's desired count and its instances (lifecycle, protection, private address). */
  @ActivityMethod(name = "DescribePool")
  PoolInstances describe(PoolSpec spec);

  /** Sets and clears scale-in protection, then sets the desired count when the request has one. */
  @ActivityMethod(name = "ResizePool")
  ResizePoolResult resize(ResizePoolRequest request);
}
