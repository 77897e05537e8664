package dev.keel.search.sim;

/**
 * Failures the simulator injects: a training run errors with {@code errorProbability} (reported as
 * {@code ERRORED} when it would have finished), a new trial's hyperparameters are rejected with
 * {@code invalidHpProbability} (reported as {@code INVALID_HP} when its first training would
 * start).
 */
public record FaultModel(double errorProbability, double invalidHpProbability) {
  public static final FaultModel NONE = new FaultModel(0, 0);
}
