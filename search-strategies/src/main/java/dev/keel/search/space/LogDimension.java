package dev.keel.search.space;

import com.google.protobuf.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code base^e} with the exponent {@code e} uniform in [minExp, maxExp] (Determined's log type:
 * minval and maxval are exponents); {@code count} grid points evenly spaced in the exponent.
 */
public record LogDimension(String name, double minExp, double maxExp, double base, int count)
    implements NumericDimension {
  @Override
  public double toUnit(Value value) {
    if (maxExp == minExp) {
      return 0.5;
    }
    double e = StrictMath.log(value.getNumberValue()) / StrictMath.log(base);
    return NumericDimension.clamp01((e - minExp) / (maxExp - minExp));
  }

  @Override
  public Value fromUnit(double u) {
    return Dimension.number(pow(minExp + NumericDimension.clamp01(u) * (maxExp - minExp)));
  }

  @Override
  public Value scale(Value value, double factor) {
    double lo = Math.min(pow(minExp), pow(maxExp));
    double hi = Math.max(pow(minExp), pow(maxExp));
    return Dimension.number(Math.min(hi, Math.max(lo, value.getNumberValue() * factor)));
  }

  @Override
  public List<Value> grid() {
    int n = Math.max(count, 1);
    List<Value> out = new ArrayList<>();
    if (n == 1) {
      out.add(Dimension.number(pow((minExp + maxExp) / 2.0)));
      return out;
    }
    for (int i = 0; i < n; i++) {
      out.add(Dimension.number(pow(minExp + i * (maxExp - minExp) / (n - 1))));
    }
    return out;
  }

  @Override
  public long gridPoints() {
    return Math.max(count, 1);
  }

  @Override
  public long cardinality() {
    return maxExp == minExp ? 1 : Long.MAX_VALUE;
  }

  private double pow(double e) {
    return StrictMath.pow(base, e);
  }
}
