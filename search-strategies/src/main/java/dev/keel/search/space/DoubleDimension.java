package dev.keel.search.space;

import com.google.protobuf.Value;
import java.util.ArrayList;
import java.util.List;

/** A real number in [min, max], uniformly; {@code count} grid points. */
public record DoubleDimension(String name, double min, double max, int count)
    implements NumericDimension {
  @Override
  public double toUnit(Value value) {
    return max == min
        ? 0.5
        : NumericDimension.clamp01((value.getNumberValue() - min) / (max - min));
  }

  @Override
  public Value fromUnit(double u) {
    return Dimension.number(Math.min(max, min + NumericDimension.clamp01(u) * (max - min)));
  }

  @Override
  public Value scale(Value value, double factor) {
    return Dimension.number(Math.min(max, Math.max(min, value.getNumberValue() * factor)));
  }

  @Override
  public List<Value> grid() {
    int n = Math.max(count, 1);
    List<Value> out = new ArrayList<>();
    if (n == 1) {
      out.add(Dimension.number((min + max) / 2.0));
      return out;
    }
    for (int i = 0; i < n; i++) {
      out.add(Dimension.number(min + i * (max - min) / (n - 1)));
    }
    return out;
  }

  @Override
  public long gridPoints() {
    return Math.max(count, 1);
  }

  @Override
  public long cardinality() {
    return max == min ? 1 : Long.MAX_VALUE;
  }
}
