package dev.keel.service.worker;

import java.time.Duration;

/**
 * How long to wait before starting a dead slot process again: {@code initial}, doubled after each
 * quick death up to {@code max}; a process that ran at least {@code healthyAfter} was healthy, so
 * its death starts the count over. A slot that cannot start at all (bad settings, no memory) then
 * costs one attempt and one log line a minute instead of a hot loop.
 */
final class RestartBackoff {
  private final Duration initial;
  private final Duration max;
  private final Duration healthyAfter;
  private Duration last;

  RestartBackoff(Duration initial, Duration max, Duration healthyAfter) {
    this.initial = initial;
    this.max = max;
    this.healthyAfter = healthyAfter;
  }

  static RestartBackoff standard() {
    return new RestartBackoff(
        Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(60));
  }

  /** The same policy with no deaths counted yet: one per slot. */
  RestartBackoff fresh() {
    return new RestartBackoff(initial, max, healthyAfter);
  }

  /** The wait before the next start, after a process that ran for {@code ranFor}. */
  Duration next(Duration ranFor) {
    if (last == null || ranFor.compareTo(healthyAfter) >= 0) {
      last = initial;
    } else {
      Duration doubled = last.multipliedBy(2);
      last = doubled.compareTo(max) > 0 ? max : doubled;
    }
    return last;
  }
}
