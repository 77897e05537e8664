package dev.keel.search.space;

import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import java.util.List;

/** One hyperparameter's domain. */
public sealed interface Dimension permits ConstDimension, CategoricalDimension, NumericDimension {
  String name();

  /** A value drawn from the prior (uniform; log-uniform for log). */
  Value sample(Prng rng);

  /**
   * Grid points (Determined's rules: {@code count} points, end points included, the midpoint if 1).
   */
  List<Value> grid();

  /**
   * How many points {@link #grid()} has, without building them (a count can be large before
   * validation refuses it).
   */
  long gridPoints();

  /**
   * Number of distinct values the dimension can take ({@link Long#MAX_VALUE} for continuous ones).
   */
  long cardinality();

  static Value number(double d) {
    return Value.newBuilder().setNumberValue(d).build();
  }
}
