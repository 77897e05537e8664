package dev.keel.gpu.gang;

/**
 * Joins this rank's gang once the model is built, so the ranks can compare parameter counts before
 * training together. The trainer closes the exchange it returns.
 */
@FunctionalInterface
public interface GangJoin {
  /** A single rank: no gang to join. */
  GangJoin SINGLE = parameters -> GradientExchange.SINGLE;

  GradientExchange join(long parameters);
}
