package dev.keel.gpu.train;

import java.util.SplittableRandom;

/**
 * Which examples form global batch {@code b}: epoch {@code e = b / batchesPerEpoch} is a
 * Fisher–Yates permutation drawn from {@code SplittableRandom(mix(seed, e))}; the incomplete tail
 * of each epoch is dropped. A pure function of (seed, examples, batch size, b), so the position to
 * resume from is just the number of batches done.
 */
public final class BatchOrder {
  /** Recorded in checkpoints; change it when the scheme changes. */
  public static final String SCHEME = "fisher-yates-splitmix-per-epoch-v1";

  private final long seed;
  private final int examples;
  private final int batchSize;
  private int cachedEpoch = -1;
  private int[] permutation;

  public BatchOrder(long seed, int examples, int batchSize) {
    if (batchSize < 1 || batchSize > examples) {
      throw new IllegalArgumentException(
          "batch size " + batchSize + " must be in [1, " + examples + "]");
    }
    this.seed = seed;
    this.examples = examples;
    this.batchSize = batchSize;
  }

  public int batchesPerEpoch() {
    return examples / batchSize;
  }

  public int epochOf(long batch) {
    return Math.toIntExact(batch / batchesPerEpoch());
  }

  /** Row indices of global batch {@code batch}. */
  public int[] indices(long batch) {
    int epoch = epochOf(batch);
    if (epoch != cachedEpoch) {
      permutation = permutation(epoch);
      cachedEpoch = epoch;
    }
    int start = (int) (batch % batchesPerEpoch()) * batchSize;
    int[] out = new int[batchSize];
    System.arraycopy(permutation, start, out, 0, batchSize);
    return out;
  }

  private int[] permutation(int epoch) {
    int[] p = new int[examples];
    for (int i = 0; i < examples; i++) {
      p[i] = i;
    }
    SplittableRandom rnd = new SplittableRandom(Seeds.mix(seed, 0x5348554646L + epoch));
    for (int i = examples - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
