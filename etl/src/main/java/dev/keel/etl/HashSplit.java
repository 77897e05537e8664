package dev.keel.etl;

import dev.keel.api.config.Splits;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The train/test split of sources without one: a record goes to {@code test} when the first 8 bytes
 * of SHA-256 of its key (an image's relative path; a row's file and record number), read as a
 * fraction of 2^64, are below {@code test_fraction}. Deterministic across runs and machines, and a
 * record keeps its split when others are added or removed.
 */
public final class HashSplit {
  public static final double DEFAULT_TEST_FRACTION = 0.2;

  private final double testFraction;
  private final MessageDigest sha;

  public HashSplit(double testFraction) {
    if (!(testFraction >= 0 && testFraction <= 1)) {
      throw new IllegalArgumentException("test_fraction must be in [0, 1], got " + testFraction);
    }
    this.testFraction = testFraction;
    try {
      this.sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public String splitOf(String key) {
    byte[] d = sha.digest(key.getBytes(StandardCharsets.UTF_8));
    long top = 0;
    for (int i = 0; i < 8; i++) {
      top = (top << 8) | (d[i] & 0xFF);
    }
    // unsigned 64-bit value / 2^64
    double u = (double) (top >>> 11) / (double) (1L << 53);
    return u < testFraction ? Splits.TEST : Splits.TRAIN;
  }
}
