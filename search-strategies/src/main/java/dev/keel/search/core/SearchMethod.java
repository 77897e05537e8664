package dev.keel.search.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.search.BracketRungs;
import dev.keel.search.ExitReason;
import java.util.List;

/**
 * One search algorithm. The {@link SearchEngine} calls it with trial events and a {@link
 * SearchContext} through which it creates trials, requests training and closes trials. Scores are
 * normalised so that <b>smaller is better</b>; a missing or failed result scores {@link
 * #WORST_SCORE}. Lengths are in the experiment's unit.
 *
 * <p>All state that changes after construction must go into {@link #saveState()}: a method rebuilt
 * from the same config and given {@link #loadState} must behave exactly like the original.
 */
public interface SearchMethod {
  double WORST_SCORE = Double.MAX_VALUE;

  /** The first decisions (from {@code initialOperations}). */
  void start(SearchContext ctx);

  default void trialCreated(SearchContext ctx, long trialId) {}

  /** The trial reached {@code units} (the length it was asked for) with this score. */
  void validationCompleted(SearchContext ctx, long trialId, double score, long units);

  default void trialClosed(SearchContext ctx, long trialId) {}

  /** The trial ended on its own (it has no outstanding request any more). */
  void trialExitedEarly(SearchContext ctx, long trialId, ExitReason reason);

  /** Total training this search will do if no trial fails (for {@code progress()}). */
  long expectedTotalUnits();

  /** A label for previews ("bracket 1", "round 3"); empty if the method has no groups. */
  default String groupOf(long trialId) {
    return "";
  }

  /** See {@link dev.keel.search.Searcher#rungs()}; must not change any state. */
  default List<BracketRungs> rungs(SearchContext ctx) {
    return List.of();
  }

  JsonNode saveState();

  void loadState(JsonNode state);
}
