package dev.keel.search.hyperband;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.SearcherConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Hyperband's arithmetic with R = {@code max_length} and {@code eta} (default 3): {@code s_max =
 * floor(log_eta R)}, capped at {@code max_rungs - 1} (default 5 rungs, as for ASHA); bracket s
 * starts {@code n = ceil((s_max+1)/(s+1) * eta^s)} trials at {@code R/eta^s} and keeps {@code
 * floor(n/eta^i)} of them in rung i, trained to {@code R/eta^(s-i)}. Brackets repeat in the order
 * {@code s_max .. 0} until {@code max_trials} trials are scheduled; the last bracket may be
 * smaller.
 */
public record HyperbandPlan(int eta, int sMax, long maxLength, List<Bracket> schedule) {
  public static final int DEFAULT_ETA = 3;
  public static final int DEFAULT_MAX_RUNGS = 5;

  /** One scheduled bracket: s, and per rung the trials that train in it and their length. */
  public record Bracket(int s, List<Integer> rungTrials, List<Long> rungLengths) {
    public Bracket {
      rungTrials = List.copyOf(rungTrials);
      rungLengths = List.copyOf(rungLengths);
    }

    public int trials() {
      return rungTrials.get(0);
    }
  }

  public HyperbandPlan {
    schedule = List.copyOf(schedule);
  }

  public static HyperbandPlan of(SearcherConfig s) {
    int eta = s.hasEta() ? s.getEta() : DEFAULT_ETA;
    long maxLength = TrainingLength.of(s.getMaxLength()).units();
    int sMax = 0;
    for (long p = eta; p <= maxLength; p *= eta) {
      sMax++;
      if (p > Long.MAX_VALUE / eta) {
        break;
      }
    }
    sMax = Math.min(sMax, (s.hasMaxRungs() ? s.getMaxRungs() : DEFAULT_MAX_RUNGS) - 1);
    int remaining = s.getMaxTrials();
    List<Bracket> schedule = new ArrayList<>();
    for (int k = 0; remaining > 0; k++) {
      int bracketS = sMax - k % (sMax + 1);
      long full = ceilDiv((sMax + 1L) * pow(eta, bracketS), bracketS + 1L);
      int n = (int) Math.min(full, remaining);
      remaining -= n;
      List<Integer> trials = new ArrayList<>();
      List<Long> lengths = new ArrayList<>();
      for (int i = 0; i <= bracketS; i++) {
        trials.add((int) Math.max(1, n / pow(eta, i)));
        lengths.add(Math.max(1, maxLength / pow(eta, bracketS - i)));
      }
      schedule.add(new Bracket(bracketS, trials, lengths));
    }
    return new HyperbandPlan(eta, sMax, maxLength, schedule);
  }

  private static long pow(int base, int exp) {
    long p = 1;
    for (int i = 0; i < exp; i++) {
      p *= base;
    }
    return p;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
