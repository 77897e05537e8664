package dev.keel.search.sim;

/**
 * A simulation gave up because its caller's stop condition said so (see {@link
 * Simulator#stoppingWhen}).
 */
public final class SimulationStoppedException extends RuntimeException {
  public SimulationStoppedException(String message) {
    super(message);
  }
}
