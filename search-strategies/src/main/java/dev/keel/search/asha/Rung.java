package dev.keel.search.asha;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.keel.search.core.RankedTree;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The results of one rung of a bracket, best (smallest score) first, each with whether its trial
 * was promoted. Every operation a result needs is O(log n), so a search costs O(n log n) in its
 * trials. A snapshot holds the rung as the list of its entries in rank order, exactly as when it
 * was a sorted list.
 *
 * <p>Equal scores keep the order {@link Ties} gives them. Either way that order is fixed once two
 * entries are in the rung, so each entry carries a tie-breaker: increasing along the rung, new
 * entries above all others ({@link Ties#EARLIER_FIRST}) or below all others ({@link
 * Ties#NEW_FIRST}).
 */
final class Rung {
  private final RankedTree<AdaptiveAshaSearch.Entry> entries = new RankedTree<>(Rung::compare);
  private final Map<Long, AdaptiveAshaSearch.Entry> byTrial = new HashMap<>();
  private long lastTie;
  private long firstTie = -1;

  /**
   * True while every unpromoted entry's trial is known to be finished (see {@link
   * #sweepUnpromoted}).
   */
  private boolean swept;

  /**
   * Where a result goes among equal scores; each variant follows Determined's ranking so decisions
   * match.
   */
  enum Ties {
    /**
     * Promotion: earlier results keep their place, so a promotion already made is never undercut.
     */
    EARLIER_FIRST,
    /** Stopping: the new result goes first, so a tie with the cut continues. */
    NEW_FIRST
  }

  Rung() {}

  /** A rung as a snapshot lists it: its entries in rank order. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static Rung of(List<AdaptiveAshaSearch.Entry> ranked) {
    Rung rung = new Rung();
    for (AdaptiveAshaSearch.Entry e : ranked) {
      e.tie = rung.lastTie++;
      rung.add(e);
    }
    return rung;
  }

  /** The entries in rank order (what a snapshot holds). */
  @JsonValue
  List<AdaptiveAshaSearch.Entry> ranked() {
    return entries.toList();
  }

  int size() {
    return entries.size();
  }

  /**
   * Adds a result (smaller scores first, equal ones ordered by {@code ties}) and returns its rank
   * (0 = best).
   */
  int insert(long trialId, double score, Ties ties) {
    AdaptiveAshaSearch.Entry e = new AdaptiveAshaSearch.Entry();
    e.trial = trialId;
    e.score = score;
    e.tie = ties == Ties.EARLIER_FIRST ? lastTie++ : firstTie--;
    swept = false;
    return add(e);
  }

  /** Marks the entry at {@code rank} promoted. */
  void promoteAt(int rank) {
    promote(entries.get(rank));
  }

  /**
   * Promotes every unpromoted entry ranked above {@code top} and returns their trials, best first.
   */
  List<Long> promoteAbove(int top) {
    List<Long> promoted = new ArrayList<>();
    for (int i = entries.firstUnmarked(); i >= 0 && i < top; i = entries.firstUnmarked()) {
      AdaptiveAshaSearch.Entry e = entries.get(i);
      promote(e);
      promoted.add(e.trial);
    }
    return promoted;
  }

  /** Removes the trial's entry, if it has one. */
  void remove(long trialId) {
    AdaptiveAshaSearch.Entry e = byTrial.remove(trialId);
    if (e != null) {
      entries.remove(e);
    }
  }

  /**
   * Hands {@code close} every unpromoted entry, in rank order, unless nothing was added since the
   * last sweep: a sweep leaves every unpromoted trial finished (closed, or ended before), a trial
   * never becomes unfinished and an entry never loses its promotion, so only a new entry can give a
   * later sweep work to do.
   */
  void sweepUnpromoted(Consumer<AdaptiveAshaSearch.Entry> close) {
    if (swept) {
      return;
    }
    entries.forEachUnmarked(close);
    swept = true;
  }

  private int add(AdaptiveAshaSearch.Entry e) {
    if (byTrial.put(e.trial, e) != null) {
      throw new IllegalStateException("trial " + e.trial + " is ranked twice in one rung");
    }
    return entries.insert(e, e.promoted);
  }

  private void promote(AdaptiveAshaSearch.Entry e) {
    e.promoted = true;
    entries.mark(e);
  }

  /**
   * Primitive comparison, as the sorted list's binary search made it: -0.0 and 0.0 are equal
   * scores.
   */
  private static int compare(AdaptiveAshaSearch.Entry a, AdaptiveAshaSearch.Entry b) {
    if (a.score < b.score) {
      return -1;
    }
    if (a.score > b.score) {
      return 1;
    }
    return Long.compare(a.tie, b.tie);
  }
}
