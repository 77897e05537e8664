package dev.keel.search.space;

import com.google.protobuf.Value;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.core.Prng;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * All hyperparameters of an experiment, in name order (so sampling never depends on map iteration
 * order).
 */
public final class HyperparameterSpace {
  private final List<Dimension> dimensions;

  public HyperparameterSpace(List<Dimension> dimensions) {
    this.dimensions = List.copyOf(dimensions);
  }

  /** Builds the space of a validated config's {@code hyperparameters} map. */
  public static HyperparameterSpace of(Map<String, Hyperparameter> hyperparameters) {
    List<Dimension> dims = new ArrayList<>();
    for (Map.Entry<String, Hyperparameter> e : new TreeMap<>(hyperparameters).entrySet()) {
      dims.add(dimension(e.getKey(), e.getValue()));
    }
    return new HyperparameterSpace(dims);
  }

  private static Dimension dimension(String name, Hyperparameter hp) {
    int count = hp.hasCount() ? hp.getCount() : 0;
    return switch (hp.getType()) {
      case "const" -> new ConstDimension(name, hp.getVal());
      case "int" -> new IntDimension(name, (long) hp.getMinval(), (long) hp.getMaxval(), count);
      case "double" -> new DoubleDimension(name, hp.getMinval(), hp.getMaxval(), count);
      case "log" -> new LogDimension(name, hp.getMinval(), hp.getMaxval(), hp.getBase(), count);
      case "categorical" -> new CategoricalDimension(name, hp.getValsList());
      default ->
          throw new IllegalArgumentException(
              name + ": unknown hyperparameter type '" + hp.getType() + "'");
    };
  }

  public List<Dimension> dimensions() {
    return dimensions;
  }

  /** One value per dimension from the prior, drawn in name order. */
  public SortedMap<String, Value> sample(Prng rng) {
    SortedMap<String, Value> out = new TreeMap<>();
    for (Dimension d : dimensions) {
      out.put(d.name(), d.sample(rng));
    }
    return out;
  }

  /**
   * Every grid point: the cartesian product of the dimensions' grids, the first name varying
   * slowest.
   */
  public List<SortedMap<String, Value>> grid() {
    List<SortedMap<String, Value>> points = new ArrayList<>();
    points.add(new TreeMap<>());
    for (Dimension d : dimensions) {
      List<SortedMap<String, Value>> next = new ArrayList<>();
      for (SortedMap<String, Value> p : points) {
        for (Value v : d.grid()) {
          SortedMap<String, Value> q = new TreeMap<>(p);
          q.put(d.name(), v);
          next.add(q);
        }
      }
      points = next;
    }
    return points;
  }

  /** Size of {@link #grid()} without building it (saturates at {@link Long#MAX_VALUE}). */
  public long gridSize() {
    long n = 1;
    for (Dimension d : dimensions) {
      long k = d.gridPoints();
      if (k == 0) {
        return 0;
      }
      n = n > Long.MAX_VALUE / k ? Long.MAX_VALUE : n * k;
    }
    return n;
  }
}
