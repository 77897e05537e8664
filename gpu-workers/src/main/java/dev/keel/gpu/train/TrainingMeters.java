package dev.keel.gpu.train;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;

/**
 * What training counts into Micrometer's global registry, for whichever registry the process
 * exports ({@code keel_training_samples_total}: its rate is the samples per second this process
 * trains).
 */
final class TrainingMeters {
  /**
   * Training rows this process's ranks have stepped through (each rank its share of a global
   * batch).
   */
  static final Counter SAMPLES =
      Counter.builder("keel.training.samples")
          .description("training samples stepped through by this process")
          .register(Metrics.globalRegistry);

  private TrainingMeters() {}
}
