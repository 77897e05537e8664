package dev.keel.search.space;

import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import java.util.List;

/** One of a list of values (any JSON value), uniformly. */
public record CategoricalDimension(String name, List<Value> values) implements Dimension {
  public CategoricalDimension {
    values = List.copyOf(values);
    if (values.isEmpty()) {
      throw new IllegalArgumentException(name + ": categorical needs at least one value");
    }
  }

  @Override
  public Value sample(Prng rng) {
    return values.get(rng.nextInt(values.size()));
  }

  @Override
  public List<Value> grid() {
    return values;
  }

  @Override
  public long gridPoints() {
    return values.size();
  }

  @Override
  public long cardinality() {
    return values.size();
  }

  /** Index of {@code v} in the list, or -1. */
  public int indexOf(Value v) {
    return values.indexOf(v);
  }
}
