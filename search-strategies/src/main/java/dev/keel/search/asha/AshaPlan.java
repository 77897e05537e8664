package dev.keel.search.asha;

import dev.keel.api.v1.SearcherConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The rung arithmetic of {@code adaptive_asha}, as Determined computes it:
 * <ul>
 *   <li>{@code max_rungs} (default 5) is capped so that the first rung gets at least one unit and at least one
 *       trial can reach the top: {@code divisor^(rungs-1) <= max_length} and {@code <= max_trials};</li>
 *   <li>{@code mode} picks the brackets (by their rung counts): aggressive {@code [R]}, standard
 *       {@code [R .. (R-1)/2+1]}, conservative {@code [R .. 1]};</li>
 *   <li>bracket b gets {@code max_trials} in proportion to {@code divisor^(rungs_b-1)/rungs_b} (equal compute per
 *       bracket), at least 1, the remainder to the first bracket;</li>
 *   <li>{@code max_concurrent_trials} is split evenly (remainder to the first brackets); unset, every bracket gets
 *       {@code max(trials of the last bracket, divisor)};</li>
 *   <li>rung i of a bracket with n rungs trains to {@code max(max_length / divisor^(n-1-i), 1)}.</li>
 * </ul>
 */
public record AshaPlan(int divisor, int maxRungs, String mode, boolean stopOnce, long maxLength, List<Bracket> brackets) {
  public static final int DEFAULT_DIVISOR = 4;
  public static final int DEFAULT_MAX_RUNGS = 5;
  public static final String DEFAULT_MODE = "standard";

  /** One bracket: its rung count, its share of the trials and slots, and each rung's training length. */
  public record Bracket(int numRungs, int maxTrials, int maxConcurrentTrials, List<Long> rungLengths) {
    public Bracket {
      rungLengths = List.copyOf(rungLengths);
    }

    /** Trials that reach rung i if every rung promotes exactly 1/divisor: {@code floor(maxTrials / divisor^i)}. */
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
    long maxLength = dev.keel.api.length.TrainingLength.of(s.getMaxLength()).units();
    int rungs = s.hasMaxRungs() ? s.getMaxRungs() : DEFAULT_MAX_RUNGS;
    rungs = Math.min(rungs, floorLog(maxLength, divisor) + 1);
    rungs = Math.min(rungs, floorLog(maxTrials, divisor) + 1);
    String mode = s.getMode().isEmpty() ? DEFAULT_MODE : s.getMode();
    List<Integer> bracketRungs = bracketRungs(mode, rungs);
    int[] trials = bracketTrials(maxTrials, divisor, bracketRungs);
    int[] concurrent = bracketConcurrency(s.hasMaxConcurrentTrials() ? s.getMaxConcurrentTrials() : 0, divisor, trials);
    List<Bracket> brackets = new ArrayList<>();
    for (int b = 0; b < bracketRungs.size(); b++) {
      int n = bracketRungs.get(b);
      List<Long> lengths = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        lengths.add(Math.max(maxLength / pow(divisor, n - 1 - i), 1L));
      }
      brackets.add(new Bracket(n, trials[b], concurrent[b], lengths));
    }
    return new AshaPlan(divisor, rungs, mode, s.getStopOnce(), maxLength, brackets);
  }

  /** Rung counts of the brackets, most rungs (most early stopping) first. */
  public static List<Integer> bracketRungs(String mode, int maxRungs) {
    int lowest = switch (mode) {
      case "aggressive" -> maxRungs;
      case "standard" -> (maxRungs - 1) / 2 + 1;
      case "conservative" -> 1;
      default -> throw new IllegalArgumentException("unknown mode '" + mode + "'");
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

  static int[] bracketConcurrency(int maxConcurrent, int divisor, int[] trials) {
    int n = trials.length;
    int[] out = new int[n];
    if (maxConcurrent <= 0) {
      java.util.Arrays.fill(out, Math.max(trials[n - 1], divisor));
      return out;
    }
    int total = Math.max(maxConcurrent, n);
    for (int b = 0; b < n; b++) {
      out[b] = total / n + (b < total % n ? 1 : 0);
    }
    return out;
  }

  /** Total slots over all brackets (the searcher's concurrency limit when the config sets none). */
  public int totalConcurrency() {
    return brackets.stream().mapToInt(Bracket::maxConcurrentTrials).sum();
  }

  public int totalTrials() {
    return brackets.stream().mapToInt(Bracket::maxTrials).sum();
  }

  /** Largest k with {@code base^k <= n} (0 if n < base); exact, unlike a floating-point logarithm. */
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
