package dev.keel.search.tpe;

import dev.keel.search.core.Prng;
import java.util.Arrays;

/**
 * A 1-D density on [0, 1]: a uniform prior plus one Gaussian per observation, each truncated to [0,
 * 1], with hyperopt's adaptive bandwidths (the larger gap to a neighbour, clipped to [1/min(100,
 * n+1), 1]).
 */
final class ParzenEstimator {
  private static final double SQRT2 = StrictMath.sqrt(2.0);
  private static final double LOG_SQRT_2PI = 0.5 * StrictMath.log(2 * StrictMath.PI);
  private final double[] mu;
  private final double[] sigma;
  private final double[] logMass;
  private final double weight;

  ParzenEstimator(double[] points) {
    int n = points.length;
    mu = points.clone();
    Arrays.sort(mu);
    sigma = new double[n];
    logMass = new double[n];
    double minSigma = 1.0 / Math.min(100, n + 1);
    for (int i = 0; i < n; i++) {
      double left = mu[i] - (i == 0 ? 0.0 : mu[i - 1]);
      double right = (i == n - 1 ? 1.0 : mu[i + 1]) - mu[i];
      sigma[i] = Math.min(1.0, Math.max(minSigma, Math.max(left, right)));
      double mass = cdf((1 - mu[i]) / sigma[i]) - cdf(-mu[i] / sigma[i]);
      logMass[i] = StrictMath.log(Math.max(mass, 1e-12));
    }
    weight = 1.0 / (n + 1);
  }

  double sample(Prng rng) {
    int k = rng.nextInt(mu.length + 1);
    if (k == mu.length) {
      return rng.nextDouble();
    }
    for (int attempt = 0; attempt < 32; attempt++) {
      double x = mu[k] + sigma[k] * rng.nextGaussian();
      if (x >= 0 && x <= 1) {
        return x;
      }
    }
    return Math.min(1, Math.max(0, mu[k]));
  }

  double logDensity(double x) {
    double sum = weight; // the uniform prior's density is 1
    for (int i = 0; i < mu.length; i++) {
      double z = (x - mu[i]) / sigma[i];
      sum +=
          weight
              * StrictMath.exp(-0.5 * z * z - LOG_SQRT_2PI - StrictMath.log(sigma[i]) - logMass[i]);
    }
    return StrictMath.log(sum);
  }

  /**
   * Standard normal CDF via erfc (Numerical Recipes' Chebyshev fit, relative error below 1.2e-7).
   */
  static double cdf(double z) {
    return 0.5 * erfc(-z / SQRT2);
  }

  private static double erfc(double x) {
    double z = Math.abs(x);
    double t = 1.0 / (1.0 + 0.5 * z);
    double r =
        t
            * StrictMath.exp(
                -z * z
                    - 1.26551223
                    + t
                        * (1.00002368
                            + t
                                * (0.37409196
                                    + t
                                        * (0.09678418
                                            + t
                                                * (-0.18628806
                                                    + t
                                                        * (0.27886807
                                                            + t
                                                                * (-1.13520398
                                                                    + t
                                                                        * (1.48851587
                                                                            + t
                                                                                * (-0.82215223
                                                                                    + t
                                                                                        * 0.17087277)))))))));
    return x >= 0 ? r : 2.0 - r;
  }
}
