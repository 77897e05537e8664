package dev.keel.gpu.train;

/** Derives independent seeds from a trial seed (SplitMix64 finalizer). */
public final class Seeds {
  private Seeds() {}

  public static long mix(long seed, long stream) {
    long z = seed + 0x9E3779B97F4A7C15L * (stream + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Seed of libtorch's generator for parameter initialization. */
  public static int init(long seed) {
    return (int) mix(seed, -1);
  }

  /** Seed of libtorch's generator for batch {@code b} (dropout masks). */
  public static int batch(long seed, long b) {
    return (int) mix(seed ^ 0x44524F50L, b);
  }

  /**
   * The same for rank {@code rank} of a gang: each rank draws its own dropout masks; rank 0 those
   * of a single rank.
   */
  public static int batch(long seed, long b, int rank) {
    return rank == 0 ? batch(seed, b) : (int) mix(mix(seed ^ 0x44524F50L, b), rank);
  }
}
