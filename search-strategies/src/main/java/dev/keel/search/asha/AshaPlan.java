package dev.keel.search.asha;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.spec.SearchSetup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rung arithmetic of {@code adaptive_asha}, as Determined computes it:
 *
 * <ul>
 *   <li>{@code max_rungs} (default 5) is capped so that the first rung gets at least one unit and
 *       at least one trial can reach the top: {@code divisor^(rungs-1) <= max_length} and {@code <=
 *       max_trials}. Keel computes the cap with an exact integer logarithm where Determined takes a
 *       floating-point one, so at some exact powers Determined gets one rung fewer (max_length
 *       1000, divisor 10: Keel 4 rungs, Determined 3); set {@code max_rungs} to reproduce such a
 *       plan;
 *   <li>{@code mode} picks the brackets (by their rung counts): aggressive {@code [R]}, standard
 *       {@code [R .. (R-1)/2+1]}, conservative {@code [R .. 1]};
 *   <li>bracket b gets {@code max_trials} in proportion to {@code divisor^(rungs_b-1)/rungs_b}
 *       (equal compute per bracket), at least 1, the remainder to the first bracket;
 *   <li>{@code max_concurrent_trials} (unset: Determined's default of {@value
 *       dev.keel.search.spec.SearchSetup#DEFAULT_MAX_CONCURRENT_TRIALS}) is split evenly over the
 *       brackets, the remainder to the first ones, at least one each; {@code 0} written out gives
 *       every bracket {@code max(the last bracket's max_trials, divisor)}, as Determined does;
 *   <li>rung i of a bracket with n rungs trains to {@code max(max_length / divisor^(n-1-i), 1)}.
 * </ul>
 */
public record AshaPlan(
    int divisor,
    int maxRungs,
    String mode,
    boolean stopOnce,
    long maxLength,
    List<Bracket> brackets) {
  public static final int DEFAULT_DIVISOR = 4;
  public static final int DEFAULT_MAX_RUNGS = 5;
  public static final SearcherConfig.Mode DEFAULT_MODE = SearcherConfig.Mode.standard;

  /**
   * One bracket: its rung count, its share of the trials and slots, and each rung's training
   * length.
   */
  public record Bracket(
      int numRungs, int maxTrials, int maxConcurrentTrials, List<Long> rungLengths) {
    public Bracket {
      rungLengths = List.copyOf(rungLengths);
    }

    /**
     * Trials that reach rung i if every rung promotes exactly 1/divisor: {@code floor(maxTrials /
     * divisor^i)}.
     */
    public long trialsReaching(int rung, int divisor) {
      long n = maxTrials;
      for (int i = 0; i < rung; i++) {
        n /= divisor;
      }
      return n;
    }
  }

  public AshaPlan {
    brackets = List.copyOf(brackets);
  }

  public static AshaPlan of(SearcherConfig s) {
    int divisor = s.hasDivisor() ? s.getDivisor() : DEFAULT_DIVISOR;
    int maxTrials = s.getMaxTrials();
    long maxLength = TrainingLength.of(s.getMaxLength()).units();
    int rungs = s.hasMaxRungs() ? s.getMaxRungs() : DEFAULT_MAX_RUNGS;
    rungs = Math.min(rungs, floorLog(maxLength, divisor) + 1);
    rungs = Math.min(rungs, floorLog(maxTrials, divisor) + 1);
    SearcherConfig.Mode mode =
        s.getMode() == SearcherConfig.Mode.MODE_UNSPECIFIED ? DEFAULT_MODE : s.getMode();
    List<Integer> bracketRungs = bracketRungs(mode, rungs);
    int[] trials = bracketTrials(maxTrials, divisor, bracketRungs);
    int maxConcurrent =
        s.hasMaxConcurrentTrials() && s.getMaxConcurrentTrials() > 0
            ? s.getMaxConcurrentTrials()
            : SearchSetup.DEFAULT_MAX_CONCURRENT_TRIALS;
    int[] concurrent =
        SearchSetup.zeroConcurrency(s)
            ? zeroConcurrency(divisor, trials)
            : bracketConcurrency(maxConcurrent, trials.length);
    List<Bracket> brackets = new ArrayList<>();
    for (int b = 0; b < bracketRungs.size(); b++) {
      int n = bracketRungs.get(b);
      List<Long> lengths = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        lengths.add(Math.max(maxLength / pow(divisor, n - 1 - i), 1L));
      }
      brackets.add(new Bracket(n, trials[b], concurrent[b], lengths));
    }
    return new AshaPlan(divisor, rungs, mode.name(), s.getStopOnce(), maxLength, brackets);
  }

  /** Rung counts of the brackets, most rungs (most early stopping) first. */
  public static List<Integer> bracketRungs(SearcherConfig.Mode mode, int maxRungs) {
    int lowest =
        switch (mode) {
          case aggressive -> maxRungs;
          case standard -> (maxRungs - 1) / 2 + 1;
          case conservative -> 1;
          case MODE_UNSPECIFIED, UNRECOGNIZED ->
              throw new IllegalArgumentException("unknown mode " + mode.getNumber());
        };
    List<Integer> out = new ArrayList<>();
    for (int r = maxRungs; r >= lowest; r--) {
      out.add(r);
    }
    return out;
  }

  static int[] bracketTrials(int maxTrials, int divisor, List<Integer> bracketRungs) {
    double[] weight = new double[bracketRungs.size()];
    double total = 0;
    for (int b = 0; b < weight.length; b++) {
      int n = bracketRungs.get(b);
      weight[b] = (double) pow(divisor, n - 1) / n;
      total += weight[b];
    }
    int[] trials = new int[weight.length];
    int allocated = 0;
    for (int b = 0; b < weight.length; b++) {
      trials[b] = Math.max((int) (weight[b] / total * maxTrials), 1);
      allocated += trials[b];
    }
    trials[0] += Math.max(maxTrials - allocated, 0);
    return trials;
  }

  /**
   * {@code maxConcurrent} split evenly over {@code brackets}, remainder to the first; at least one
   * slot each.
   */
  static int[] bracketConcurrency(int maxConcurrent, int brackets) {
    int[] out = new int[brackets];
    int total = Math.max(maxConcurrent, brackets);
    for (int b = 0; b < brackets; b++) {
      out[b] = total / brackets + (b < total % brackets ? 1 : 0);
    }
    return out;
  }

  /**
   * Determined's {@code max_concurrent_trials: 0}: every bracket gets {@code max(the last bracket's
   * max_trials, divisor)} slots, so each bracket can keep roughly equal work going.
   */
  static int[] zeroConcurrency(int divisor, int[] bracketTrials) {
    int each = Math.max(bracketTrials[bracketTrials.length - 1], divisor);
    int[] out = new int[bracketTrials.length];
    Arrays.fill(out, each);
    return out;
  }

  /** Total slots over all brackets (the searcher's concurrency limit when the config sets none). */
  public int totalConcurrency() {
    return brackets.stream().mapToInt(Bracket::maxConcurrentTrials).sum();
  }

  public int totalTrials() {
    return brackets.stream().mapToInt(Bracket::maxTrials).sum();
  }

  /**
   * Largest k with {@code base^k <= n} (0 if n < base). Integer arithmetic on purpose: it is the
   * same on every JVM and true to the rule at exact powers, where {@code log(1000) / log(10)} is
   * 2.9999999999999996.
   */
  static int floorLog(long n, int base) {
    int k = 0;
    long p = base;
    while (p <= n) {
      k++;
      if (p > Long.MAX_VALUE / base) {
        break;
      }
      p *= base;
    }
    return k;
  }

  static long pow(int base, int exp) {
    long p = 1;
    for (int i = 0; i < exp; i++) {
      p *= base;
    }
    return p;
  }
}
