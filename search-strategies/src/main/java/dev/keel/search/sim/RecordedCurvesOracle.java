package dev.keel.search.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.core.Prng;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.CategoricalDimension;
import dev.keel.search.space.Dimension;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.space.NumericDimension;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An oracle that replays recorded learning curves (format in the module README):
 *
 * <pre>
 * {"metric": "validation_loss", "smaller_is_better": true, "unit": "batches", "noise": 0.0,
 *  "hyperparameters": {"lr": {"type": "log", "minval": -4, "maxval": -1, "base": 10}, ...},
 *  "curves": [{"hparams": {"lr": 0.001, ...}, "seconds_per_unit": 0.05,
 *              "points": [[100, 0.92], [200, 0.71], ...]}, ...]}
 * </pre>
 *
 * A configuration that was not recorded gets the curve of the nearest recorded one (squared
 * distance of the numeric hyperparameters in their unit intervals, 1 per differing categorical).
 * Between recorded lengths the metric is interpolated linearly; before the first point it is the
 * first point's, after the last the last's. {@code noise} adds Gaussian noise of that standard
 * deviation.
 */
public final class RecordedCurvesOracle implements LearningCurveOracle {
  private final Map<String, Hyperparameter> hyperparameters;
  private final HyperparameterSpace space;
  private final boolean smallerIsBetter;
  private final double noise;
  private final String unit;
  private final List<Curve> curves;

  /** One recorded run. */
  public record Curve(
      SortedMap<String, Value> hparams, double secondsPerUnit, long[] lengths, double[] metrics) {}

  private RecordedCurvesOracle(
      Map<String, Hyperparameter> hps,
      boolean smallerIsBetter,
      double noise,
      String unit,
      List<Curve> curves) {
    this.hyperparameters = hps;
    this.space = HyperparameterSpace.of(hps);
    this.smallerIsBetter = smallerIsBetter;
    this.noise = noise;
    this.unit = unit;
    this.curves = List.copyOf(curves);
  }

  /** Parses the JSON document; problems name the offending curve. */
  public static RecordedCurvesOracle parse(String json) {
    JsonNode doc = StateCodec.read(json);
    Map<String, Hyperparameter> hps = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("hyperparameters").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      Hyperparameter.Builder b = Hyperparameter.newBuilder();
      try {
        JsonFormat.parser().merge(StateCodec.write(e.getValue()), b);
      } catch (InvalidProtocolBufferException ex) {
        throw new IllegalArgumentException(
            "hyperparameters." + e.getKey() + ": " + ex.getMessage(), ex);
      }
      hps.put(e.getKey(), b.build());
    }
    List<Curve> curves = new ArrayList<>();
    int index = 0;
    for (JsonNode c : doc.path("curves")) {
      SortedMap<String, Value> hp = new TreeMap<>();
      c.path("hparams")
          .fields()
          .forEachRemaining(e -> hp.put(e.getKey(), StateCodec.jsonToValue(e.getValue())));
      JsonNode pts = c.path("points");
      if (!pts.isArray() || pts.isEmpty()) {
        throw new IllegalArgumentException(
            "curves[" + index + "].points: needs at least one [length, metric] pair");
      }
      long[] lengths = new long[pts.size()];
      double[] metrics = new double[pts.size()];
      for (int i = 0; i < pts.size(); i++) {
        lengths[i] = pts.get(i).get(0).asLong();
        metrics[i] = pts.get(i).get(1).asDouble();
        if (i > 0 && lengths[i] <= lengths[i - 1]) {
          throw new IllegalArgumentException("curves[" + index + "].points: lengths must increase");
        }
      }
      if (!hp.keySet().equals(hps.keySet())) {
        throw new IllegalArgumentException(
            "curves[" + index + "].hparams: expected " + hps.keySet() + ", got " + hp.keySet());
      }
      curves.add(new Curve(hp, c.path("seconds_per_unit").asDouble(1.0), lengths, metrics));
      index++;
    }
    if (curves.isEmpty()) {
      throw new IllegalArgumentException("curves: at least one curve is required");
    }
    return new RecordedCurvesOracle(
        hps,
        doc.path("smaller_is_better").asBoolean(true),
        doc.path("noise").asDouble(0),
        doc.path("unit").asText("batches"),
        curves);
  }

  public List<Curve> curves() {
    return curves;
  }

  public String unit() {
    return unit;
  }

  @Override
  public double metric(SortedMap<String, Value> hparams, long units, Prng rng) {
    double m = interpolate(nearest(hparams), units);
    return noise > 0 ? m + noise * rng.nextGaussian() : m;
  }

  @Override
  public double secondsPerUnit(SortedMap<String, Value> hparams) {
    return nearest(hparams).secondsPerUnit();
  }

  @Override
  public boolean smallerIsBetter() {
    return smallerIsBetter;
  }

  @Override
  public Map<String, Hyperparameter> hyperparameters() {
    return hyperparameters;
  }

  private Curve nearest(SortedMap<String, Value> hparams) {
    Curve best = curves.get(0);
    double bestDistance = Double.POSITIVE_INFINITY;
    for (Curve c : curves) {
      double d = 0;
      for (Dimension dim : space.dimensions()) {
        Value a = hparams.get(dim.name());
        Value b = c.hparams().get(dim.name());
        if (dim instanceof NumericDimension n) {
          double x = n.toUnit(a) - n.toUnit(b);
          d += x * x;
        } else if (dim instanceof CategoricalDimension && !a.equals(b)) {
          d += 1;
        }
      }
      if (d < bestDistance) {
        bestDistance = d;
        best = c;
      }
    }
    return best;
  }

  private static double interpolate(Curve c, long units) {
    long[] x = c.lengths();
    double[] y = c.metrics();
    if (units <= x[0]) {
      return y[0];
    }
    for (int i = 1; i < x.length; i++) {
      if (units <= x[i]) {
        double f = (double) (units - x[i - 1]) / (x[i] - x[i - 1]);
        return y[i - 1] + f * (y[i] - y[i - 1]);
      }
    }
    return y[y.length - 1];
  }
}
