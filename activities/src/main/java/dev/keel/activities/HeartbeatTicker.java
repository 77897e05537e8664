package dev.keel.activities;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Heartbeats the running activity from a daemon thread until closed, so that a worker killed in the
 * middle of a long step that cannot heartbeat itself (decoding a source, writing Parquet, a forward
 * pass over a partition) is found dead within the activity's heartbeat timeout, and the attempt
 * goes to another worker, instead of waiting out the start-to-close timeout. It proves that the
 * process lives, not that the work advances: the start-to-close timeout still bounds a hung step.
 */
public final class HeartbeatTicker implements AutoCloseable {
  private static final HeartbeatTicker NONE = new HeartbeatTicker(null);
  private final ScheduledExecutorService timer;

  private HeartbeatTicker(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /**
   * Ticks at a quarter of the activity's heartbeat timeout (Temporal sends at most one heartbeat
   * per 0.8 × the timeout, so each interval has several chances). Does nothing when the activity
   * has no heartbeat timeout, or when called outside an activity (a test calling the implementation
   * directly).
   */
  public static HeartbeatTicker start() {
    ActivityExecutionContext context;
    try {
      context = Activity.getExecutionContext();
    } catch (IllegalStateException notAnActivity) {
      return NONE;
    }
    Duration timeout = context.getInfo().getHeartbeatTimeout();
    if (timeout == null || timeout.isZero()) {
      return NONE;
    }
    long periodMillis = Math.max(100, timeout.toMillis() / 4);
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "keel-heartbeat-" + context.getInfo().getActivityType());
              t.setDaemon(true);
              return t;
            });
    // the task catches what a heartbeat throws, so the schedule never ends by itself; close() ends
    // it
    ScheduledFuture<?> unused =
        timer.scheduleAtFixedRate(
            () -> {
              try {
                context.heartbeat(null);
              } catch (ActivityCompletionException ended) {
                // cancelled or timed out: the attempt is over for the server; its own thread finds
                // out
                // when it returns
              } catch (RuntimeException e) {
                // a failed heartbeat RPC: the next tick tries again
              }
            },
            0,
            periodMillis,
            TimeUnit.MILLISECONDS);
    return new HeartbeatTicker(timer);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
