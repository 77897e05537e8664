package dev.keel.workflows.pool;

import dev.keel.api.v1.PoolSpec;

/**
 * The launch-error back-off: after the {@code failures}-th failure in a row the provisioner asks
 * for nothing for {@code launch_error_backoff × 2^(failures-1)}, at most {@code
 * max_launch_error_backoff}.
 *
 * @param failures consecutive failures so far
 * @param untilMillis no request before this time
 * @param lastError the last failure's reason
 */
public record PoolBackoff(int failures, long untilMillis, String lastError) {
  public static final PoolBackoff NONE = new PoolBackoff(0, 0, "");

  public boolean active(long nowMillis) {
    return nowMillis < untilMillis;
  }

  /** The pause after the {@code failures}-th consecutive failure. */
  public static long delayMillis(PoolSpec spec, int failures) {
    long initial = PoolSpecs.millis(spec.getLaunchErrorBackoff());
    long max = PoolSpecs.millis(spec.getMaxLaunchErrorBackoff());
    long delay = initial;
    for (int i = 1; i < failures && delay < max; i++) {
      delay *= 2;
    }
    return Math.min(delay, max);
  }
}
