package dev.keel.storage.checkpoint;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;

/** Checkpoint bytes this process committed and deleted, in Micrometer's global registry. */
final class CheckpointMeters {
  static final Counter BYTES_WRITTEN =
      Counter.builder("keel.checkpoint.written")
          .baseUnit("bytes")
          .description("bytes of checkpoints committed by this process")
          .register(Metrics.globalRegistry);
  static final Counter BYTES_DELETED =
      Counter.builder("keel.checkpoint.deleted")
          .baseUnit("bytes")
          .description("bytes of checkpoints deleted by this process's garbage collection")
          .register(Metrics.globalRegistry);

  private CheckpointMeters() {}
}
