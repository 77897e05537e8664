package dev.keel.gpu.train;

import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.ValidationSpec;
import dev.keel.tables.dataset.LabeledExamples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which rows of a train split validate a trial. Every row is ranked by a seeded hash of its id, and
 * the {@code fraction} of lowest-ranked rows is held out — of every label separately when {@code
 * stratify} is set — so the validation rows depend only on the rows, the fraction and the seed: the
 * same on every trial, resume and rank, whatever order the table lists its rows in (image folders
 * and many CSVs list them class by class). A label keeps at least one training row.
 *
 * <p>{@code tableOrder} is the rule of requests from workflows started before the hash existed: the
 * last {@code fraction} of the split in table order, kept so that their trials resume on the rows
 * they started with.
 *
 * @param fraction of the split held out, in (0, 1)
 */
public record ValidationHoldOut(double fraction, boolean stratify, long seed, boolean tableOrder) {

  public ValidationHoldOut {
    if (!(fraction > 0 && fraction < 1)) {
      throw new IllegalArgumentException("validation fraction must be in (0, 1), got " + fraction);
    }
  }

  /**
   * The request's rule: its {@code validation}, else (an older workflow's request) the table-order
   * cut.
   */
  public static ValidationHoldOut of(TrainRequest r) {
    double legacy =
        r.getValidationFraction() == 0
            ? ConfigDefaults.VALIDATION_FRACTION
            : r.getValidationFraction();
    if (!r.hasValidation()) {
      return new ValidationHoldOut(legacy, false, 0, true);
    }
    ValidationSpec v = r.getValidation();
    return new ValidationHoldOut(
        v.hasFraction() ? v.getFraction() : legacy,
        v.hasStratify() ? v.getStratify() : ConfigDefaults.VALIDATION_STRATIFY,
        v.hasSeed() ? v.getSeed() : ConfigDefaults.VALIDATION_SEED,
        false);
  }

  /** The default rule of new experiments. */
  public static ValidationHoldOut defaults() {
    return new ValidationHoldOut(
        ConfigDefaults.VALIDATION_FRACTION,
        ConfigDefaults.VALIDATION_STRATIFY,
        ConfigDefaults.VALIDATION_SEED,
        false);
  }

  /**
   * The training rows and the held-out rows, each in table order.
   *
   * @throws IllegalArgumentException when the split leaves no training or no validation rows
   */
  public TrainValidationSplit split(LabeledExamples all) {
    boolean[] held = heldOut(all);
    int heldCount = 0;
    for (boolean h : held) {
      heldCount += h ? 1 : 0;
    }
    if (heldCount < 1 || heldCount >= all.size()) {
      throw new IllegalArgumentException(
          "validation fraction "
              + fraction
              + " of "
              + all.size()
              + " rows leaves no training or no validation data");
    }
    int[] train = new int[all.size() - heldCount];
    int[] validation = new int[heldCount];
    for (int i = 0, t = 0, v = 0; i < held.length; i++) {
      if (held[i]) {
        validation[v++] = i;
      } else {
        train[t++] = i;
      }
    }
    return new TrainValidationSplit(all.select(train), all.select(validation));
  }

  /** How many rows of {@code all} train (are not held out). */
  public int trainingRows(LabeledExamples all) {
    int n = 0;
    for (boolean h : heldOut(all)) {
      n += h ? 0 : 1;
    }
    return n;
  }

  /** The rule as fingerprints and logs name it. */
  public String describe() {
    return tableOrder
        ? String.format(Locale.ROOT, "last %s of the split in table order", fraction)
        : String.format(
            Locale.ROOT,
            "%s by row-id hash (seed %d%s)",
            fraction,
            seed,
            stratify ? ", per label" : "");
  }

  private boolean[] heldOut(LabeledExamples all) {
    int n = all.size();
    boolean[] held = new boolean[n];
    if (tableOrder) {
      Arrays.fill(held, n - (int) Math.round(n * fraction), n, true);
      return held;
    }
    long[] ids = all.ids();
    int[] labels = all.labels();
    Map<Integer, List<Integer>> groups = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      groups.computeIfAbsent(stratify ? labels[i] : 0, k -> new ArrayList<>()).add(i);
    }
    for (List<Integer> rows : groups.values()) {
      long[] keys = new long[rows.size()];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = rank(seed, ids[rows.get(j)]);
      }
      Integer[] order = new Integer[rows.size()];
      for (int j = 0; j < order.length; j++) {
        order[j] = j;
      }
      // the row index breaks ties of equal ids, so the order is total
      Arrays.sort(
          order,
          (a, b) -> {
            int c = Long.compareUnsigned(keys[a], keys[b]);
            return c != 0 ? c : Integer.compare(rows.get(a), rows.get(b));
          });
      int take = (int) Math.min(Math.round(rows.size() * fraction), Math.max(0, rows.size() - 1L));
      for (int j = 0; j < take; j++) {
        held[rows.get(order[j])] = true;
      }
    }
    return held;
  }

  /**
   * SplitMix64's finalizer over the id mixed with the seed: stable across JVMs, machines and
   * versions.
   */
  static long rank(long seed, long id) {
    return mix(id ^ mix(seed + 0x9E3779B97F4A7C15L));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
