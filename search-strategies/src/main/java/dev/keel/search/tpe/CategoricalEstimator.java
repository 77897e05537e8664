package dev.keel.search.tpe;

import dev.keel.search.core.Prng;

/** Category frequencies with one pseudo-count per category (the uniform prior). */
final class CategoricalEstimator {
  private final double[] p;

  CategoricalEstimator(int[] indices, int categories) {
    p = new double[categories];
    for (int i = 0; i < categories; i++) {
      p[i] = 1.0;
    }
    for (int i : indices) {
      p[i] += 1.0;
    }
    double total = categories + indices.length;
    for (int i = 0; i < categories; i++) {
      p[i] /= total;
    }
  }

  int sample(Prng rng) {
    double u = rng.nextDouble();
    double acc = 0;
    for (int i = 0; i < p.length; i++) {
      acc += p[i];
      if (u < acc) {
        return i;
      }
    }
    return p.length - 1;
  }

  double logDensity(int index) {
    return StrictMath.log(p[index]);
  }
}
