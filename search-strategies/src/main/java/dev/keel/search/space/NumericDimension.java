package dev.keel.search.space;

import com.google.protobuf.Value;
import dev.keel.search.core.Prng;

/**
 * An int, double or log hyperparameter. Model-based samplers work in a unit interval: {@link
 * #toUnit} and {@link #fromUnit} map between values and [0, 1] (log dimensions are uniform in the
 * exponent).
 */
public sealed interface NumericDimension extends Dimension
    permits IntDimension, DoubleDimension, LogDimension {

  /** Position of a value in [0, 1] (clamped). */
  double toUnit(Value value);

  /** The value at position {@code u} in [0, 1] (clamped). */
  Value fromUnit(double u);

  /** {@code value * factor}, kept inside the range; an int moves by at least one step. */
  Value scale(Value value, double factor);

  @Override
  default Value sample(Prng rng) {
    return fromUnit(rng.nextDouble());
  }

  static double clamp01(double u) {
    return u < 0 ? 0 : (u > 1 ? 1 : u);
  }
}
