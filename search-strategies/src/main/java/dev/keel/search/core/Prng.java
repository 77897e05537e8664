package dev.keel.search.core;

/**
 * SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state, identical output on every JVM and machine,
 * and a state that fits in a snapshot. Transcendental functions go through {@link StrictMath} so
 * derived values (Gaussians) are bit-identical everywhere too.
 */
public final class Prng {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
  private long state;

  private Prng() {}

  public Prng(long seed) {
    this.state = mix(seed ^ 0x4B45454C5345454BL);
  }

  public static Prng ofState(long state) {
    Prng p = new Prng();
    p.state = state;
    return p;
  }

  public long state() {
    return state;
  }

  public long nextLong() {
    state += GOLDEN_GAMMA;
    return mix(state);
  }

  /** Uniform in [0, 1) with 53 random bits. */
  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** Uniform in [0, bound), without modulo bias. */
  public int nextInt(int bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be > 0, got " + bound);
    }
    long m = bound - 1L;
    long r = nextLong() >>> 1;
    for (long u = r; u - (r = u % bound) + m < 0; u = nextLong() >>> 1) {
      // reject the biased tail
    }
    return (int) r;
  }

  /** Uniform integer in [min, max], both inclusive. */
  public long nextLong(long min, long max) {
    if (max < min) {
      throw new IllegalArgumentException("max < min");
    }
    long span = max - min + 1;
    if (span <= 0 || span > Integer.MAX_VALUE) {
      return min + Long.remainderUnsigned(nextLong(), span <= 0 ? Long.MAX_VALUE : span);
    }
    return min + nextInt((int) span);
  }

  /**
   * Standard normal (Box-Muller, no cached second value, so the state is just {@link #state()}).
   */
  public double nextGaussian() {
    double u1 = 1.0 - nextDouble();
    double u2 = nextDouble();
    return StrictMath.sqrt(-2.0 * StrictMath.log(u1)) * StrictMath.cos(2.0 * StrictMath.PI * u2);
  }

  /** An independent generator derived from this one (advances this one by one step). */
  public Prng split() {
    return new Prng(nextLong());
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
