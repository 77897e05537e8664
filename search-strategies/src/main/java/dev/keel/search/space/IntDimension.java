package dev.keel.search.space;

import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import java.util.ArrayList;
import java.util.List;

/** An integer in [min, max], both inclusive; {@code count} grid points. */
public record IntDimension(String name, long min, long max, int count) implements NumericDimension {
  @Override
  public Value sample(Prng rng) {
    return Dimension.number((double) rng.nextLong(min, max));
  }

  @Override
  public double toUnit(Value value) {
    return NumericDimension.clamp01((value.getNumberValue() - min + 0.5) / (max - min + 1.0));
  }

  @Override
  public Value fromUnit(double u) {
    long v = min + (long) Math.floor(NumericDimension.clamp01(u) * (max - min + 1.0));
    return Dimension.number((double) Math.min(max, Math.max(min, v)));
  }

  @Override
  public Value scale(Value value, double factor) {
    double old = value.getNumberValue();
    long v = Math.round(old * factor);
    if (v == (long) old) {
      v += factor >= 1 ? 1 : -1;
    }
    return Dimension.number((double) Math.min(max, Math.max(min, v)));
  }

  @Override
  public List<Value> grid() {
    long n = gridPoints();
    List<Value> out = new ArrayList<>();
    if (n == 1) {
      out.add(Dimension.number((double) roundHalfAwayFromZero((min + max) / 2.0)));
      return out;
    }
    for (long i = 0; i < n; i++) {
      out.add(
          Dimension.number(
              (double) roundHalfAwayFromZero(min + (double) (i * (max - min)) / (n - 1))));
    }
    return out;
  }

  @Override
  public long gridPoints() {
    return Math.max(0, Math.min(Math.max(count, 1), max - min + 1));
  }

  /**
   * Rounds halves away from zero, as Determined's grid does (Go's {@code math.Round}), so negative
   * ranges get the same points: {@link Math#round} would take -2.5 to -2 where Determined takes it
   * to -3.
   */
  static long roundHalfAwayFromZero(double x) {
    double a = Math.abs(x);
    double whole = Math.floor(a);
    long r = (long) whole + (a - whole >= 0.5 ? 1 : 0);
    return x < 0 ? -r : r;
  }

  @Override
  public long cardinality() {
    return max - min + 1;
  }
}
