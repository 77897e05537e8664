package dev.keel.search.sim;

import com.google.protobuf.Value;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.core.Prng;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A synthetic family of loss curves with a known optimum and crossing curves, over four
 * hyperparameters: {@code lr} (log, 1e-5..1), {@code width} (int, 16..256), {@code dropout}
 * (double, 0..0.6) and {@code optimizer} (categorical: sgd, adam, rmsprop).
 *
 * <pre>
 * loss(x, t) = floor(x) + (2.3 - floor(x)) * (tau(x) / (tau(x) + t))    + noise
 * floor(x)   = 0.10 + 0.9 * (4 (a - a*(opt))^2 + 0.6 (w - 0.7)^2 + 0.8 (d - 0.3)^2) + penalty(opt)
 * tau(x)     = 30 * 10^(-0.2 (a - 0.5)) * (1 + d/2)
 * </pre>
 *
 * with {@code a}, {@code w}, {@code d} the positions of lr (in the exponent), width and dropout in
 * [0, 1]; {@code a*} = 0.44 (adam), 0.36 (rmsprop), 0.74 (sgd); penalty 0, 0.02, 0.04. A larger
 * learning rate learns faster (small tau) but its floor may be higher, so curves cross (Spearman
 * rank correlation of the loss after 10 and after 2560 units over random configurations: about
 * 0.88; after 160 and 2560: 0.99). Noise is Gaussian with standard deviation {@code noise * (0.1 +
 * tau/(tau+t))} (validation gets less noisy as training goes on). Wider networks take longer per
 * unit: {@code 0.5 + width/256} seconds. The optimum is {@code lr = 10^-2.8, width = 184 (w = 0.7),
 * dropout = 0.18 (d = 0.3), adam}.
 */
public final class SyntheticOracle implements LearningCurveOracle {
  private static final List<String> OPTIMIZERS = List.of("sgd", "adam", "rmsprop");
  private static final double[] BEST_A = {0.74, 0.44, 0.36};
  private static final double[] PENALTY = {0.04, 0.0, 0.02};
  private final double noise;

  public SyntheticOracle(double noise) {
    this.noise = noise;
  }

  /** The optimum's hyperparameters. */
  public static SortedMap<String, Value> optimum() {
    SortedMap<String, Value> x = new TreeMap<>();
    x.put("lr", num(StrictMath.pow(10, -5 + 5 * 0.44)));
    x.put("width", num((double) (16 + Math.round(0.7 * 240))));
    x.put("dropout", num(0.3 * 0.6));
    x.put("optimizer", Value.newBuilder().setStringValue("adam").build());
    return x;
  }

  /** The noise-free loss of {@code hparams} after {@code units}. */
  public double expected(SortedMap<String, Value> hparams, long units) {
    double a = (StrictMath.log10(hparams.get("lr").getNumberValue()) + 5) / 5;
    double w = (hparams.get("width").getNumberValue() - 16) / 240;
    double d = hparams.get("dropout").getNumberValue() / 0.6;
    int opt = Math.max(0, OPTIMIZERS.indexOf(hparams.get("optimizer").getStringValue()));
    double floor =
        0.10
            + 0.9 * (4 * sq(a - BEST_A[opt]) + 0.6 * sq(w - 0.7) + 0.8 * sq(d - 0.3))
            + PENALTY[opt];
    double tau = tau(a, d);
    return floor + (2.3 - floor) * (tau / (tau + units));
  }

  @Override
  public double metric(SortedMap<String, Value> hparams, long units, Prng rng) {
    double a = (StrictMath.log10(hparams.get("lr").getNumberValue()) + 5) / 5;
    double d = hparams.get("dropout").getNumberValue() / 0.6;
    double tau = tau(a, d);
    return expected(hparams, units) + noise * (0.1 + tau / (tau + units)) * rng.nextGaussian();
  }

  @Override
  public double secondsPerUnit(SortedMap<String, Value> hparams) {
    return 0.5 + hparams.get("width").getNumberValue() / 256.0;
  }

  @Override
  public boolean smallerIsBetter() {
    return true;
  }

  @Override
  public Map<String, Hyperparameter> hyperparameters() {
    Map<String, Hyperparameter> hps = new TreeMap<>();
    hps.put(
        "lr",
        Hyperparameter.newBuilder()
            .setType("log")
            .setMinval(-5)
            .setMaxval(0)
            .setBase(10)
            .setCount(6)
            .build());
    hps.put(
        "width",
        Hyperparameter.newBuilder()
            .setType("int")
            .setMinval(16)
            .setMaxval(256)
            .setCount(5)
            .build());
    hps.put(
        "dropout",
        Hyperparameter.newBuilder()
            .setType("double")
            .setMinval(0)
            .setMaxval(0.6)
            .setCount(4)
            .build());
    Hyperparameter.Builder opt = Hyperparameter.newBuilder().setType("categorical");
    OPTIMIZERS.forEach(o -> opt.addVals(Value.newBuilder().setStringValue(o)));
    hps.put("optimizer", opt.build());
    return hps;
  }

  private static double tau(double a, double d) {
    return 30 * StrictMath.pow(10, -0.2 * (a - 0.5)) * (1 + 0.5 * d);
  }

  private static double sq(double x) {
    return x * x;
  }

  private static Value num(double d) {
    return Value.newBuilder().setNumberValue(d).build();
  }
}
