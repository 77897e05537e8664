package dev.keel.search.space;

import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import java.util.List;

/** A fixed value. */
public record ConstDimension(String name, Value value) implements Dimension {
  @Override
  public Value sample(Prng rng) {
    return value;
  }

  @Override
  public List<Value> grid() {
    return List.of(value);
  }

  @Override
  public long gridPoints() {
    return 1;
  }

  @Override
  public long cardinality() {
    return 1;
  }
}
