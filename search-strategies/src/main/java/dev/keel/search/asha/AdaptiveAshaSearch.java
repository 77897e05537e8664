package dev.keel.search.asha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.search.BracketRungs;
import dev.keel.search.ExitReason;
import dev.keel.search.core.SearchContext;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.HyperparameterSampler;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Adaptive ASHA: the brackets of an {@link AshaPlan}, each an asynchronous successive-halving run.
 *
 * <p><b>Promotion</b> (default, the ASHA paper): a trial that finishes rung i joins that rung's
 * ranking and pauses; whenever the top {@code floor(n/divisor)} of the n results in a rung holds a
 * trial not yet promoted, that trial continues to rung i+1 in the slot just freed; otherwise the
 * slot starts a new trial. Once a bracket has all its trials ranked in rung 0, rungs that can no
 * longer change close their unpromoted trials.
 *
 * <p><b>Stopping</b> ({@code stop_once}): a trial continues to the next rung at once if it ranks in
 * the top {@code max(1, floor(n/divisor))} of its rung so far, else it is closed for good. No trial
 * ever pauses. A new result ranks before earlier equal ones (as in Determined's stopping ASHA), so
 * a trial tied with the rung's cut continues: the earlier ones already did, and stopping the
 * newcomer would judge equal results differently.
 *
 * <p>New trials go to the first bracket below its share of {@code max_concurrent_trials}; once a
 * bracket has created all its trials its slots are lent to the others, so no slot idles while any
 * bracket has trials left. A trial that errors or is stopped ranks last in its rung. A trial with
 * invalid hyperparameters is removed from every rung and replaced (at most {@code max_trials}
 * replacements per bracket).
 *
 * <p>Each result costs O(log n) in its rung's size (a {@link Rung} is an order-statistic tree), so
 * a search, and a preview, of n trials is O(n log n).
 */
public final class AdaptiveAshaSearch implements SearchMethod {
  private final AshaPlan plan;
  private final HyperparameterSampler sampler;
  private State state = new State();

  static final class State {
    ArrayList<BracketState> brackets = new ArrayList<>();
    TreeMap<Long, Integer> trialBracket = new TreeMap<>();
    TreeMap<Long, Integer> trialRung = new TreeMap<>();
    TreeSet<Long> training = new TreeSet<>();
  }

  static final class BracketState {
    int created;
    int counted;
    int active;
    int[] outstanding;
    ArrayList<Rung> rungs = new ArrayList<>();
  }

  static final class Entry {
    long trial;
    double score;
    boolean promoted;

    /**
     * Orders equal scores within a rung (see {@link Rung}); not in snapshots, where the list order
     * says it.
     */
    transient long tie;
  }

  public AdaptiveAshaSearch(AshaPlan plan, HyperparameterSampler sampler) {
    this.plan = plan;
    this.sampler = sampler;
    for (AshaPlan.Bracket b : plan.brackets()) {
      BracketState s = new BracketState();
      s.outstanding = new int[b.numRungs()];
      for (int i = 0; i < b.numRungs(); i++) {
        s.rungs.add(new Rung());
      }
      state.brackets.add(s);
    }
  }

  public AshaPlan plan() {
    return plan;
  }

  @Override
  public void start(SearchContext ctx) {
    fill(ctx);
  }

  @Override
  public void validationCompleted(SearchContext ctx, long trialId, double score, long units) {
    int b = state.trialBracket.get(trialId);
    BracketState bracket = state.brackets.get(b);
    int rung = state.trialRung.get(trialId);
    stopTraining(bracket, trialId, rung);
    sampler.observe(ctx.hparams(trialId), units, score);
    if (plan.stopOnce()) {
      continueOrStop(ctx, b, trialId, rung, score);
    } else {
      rank(ctx, b, trialId, rung, score);
    }
    fill(ctx);
    closeOut(ctx, b);
  }

  @Override
  public void trialExitedEarly(SearchContext ctx, long trialId, ExitReason reason) {
    int b = state.trialBracket.get(trialId);
    BracketState bracket = state.brackets.get(b);
    int rung = state.trialRung.get(trialId);
    boolean wasTraining = state.training.contains(trialId);
    if (wasTraining) {
      stopTraining(bracket, trialId, rung);
    }
    if (reason == ExitReason.INVALID_HP) {
      for (Rung entries : bracket.rungs) {
        entries.remove(trialId);
      }
      bracket.counted--;
      sampler.forget(ctx.hparams(trialId));
    } else if (wasTraining) {
      if (plan.stopOnce()) {
        bracket.rungs.get(rung).insert(trialId, WORST_SCORE, Rung.Ties.NEW_FIRST);
      } else {
        rank(ctx, b, trialId, rung, WORST_SCORE);
      }
    }
    // a paused trial that exits keeps its rank; if promoted later it scores worst at the next rung
    fill(ctx);
    closeOut(ctx, b);
  }

  private void stopTraining(BracketState bracket, long trialId, int rung) {
    state.training.remove(trialId);
    bracket.outstanding[rung]--;
    bracket.active--;
  }

  /** Promotion variant: rank the result, then run whichever trials the rung now promotes. */
  private void rank(SearchContext ctx, int b, long trialId, int rung, double score) {
    BracketState bracket = state.brackets.get(b);
    int top = bracket.rungs.size() - 1;
    if (rung == top) {
      if (!ctx.isFinished(trialId)) {
        ctx.close(trialId);
      }
      return;
    }
    Rung entries = bracket.rungs.get(rung);
    entries.insert(trialId, score, Rung.Ties.EARLIER_FIRST);
    List<Long> promoted = entries.promoteAbove(entries.size() / plan.divisor());
    for (long id : promoted) {
      state.trialRung.put(id, rung + 1);
      if (ctx.isFinished(id)) {
        rank(ctx, b, id, rung + 1, WORST_SCORE);
      } else {
        train(ctx, b, id, rung + 1);
      }
    }
  }

  /** Stopping variant: continue at once if in the rung's top 1/divisor so far, else close. */
  private void continueOrStop(SearchContext ctx, int b, long trialId, int rung, double score) {
    BracketState bracket = state.brackets.get(b);
    Rung entries = bracket.rungs.get(rung);
    int index = entries.insert(trialId, score, Rung.Ties.NEW_FIRST);
    int keep = Math.max(1, entries.size() / plan.divisor());
    if (rung < bracket.rungs.size() - 1 && index < keep) {
      entries.promoteAt(index);
      state.trialRung.put(trialId, rung + 1);
      train(ctx, b, trialId, rung + 1);
    } else {
      ctx.close(trialId);
    }
  }

  private void train(SearchContext ctx, int b, long trialId, int rung) {
    BracketState bracket = state.brackets.get(b);
    bracket.outstanding[rung]++;
    bracket.active++;
    state.training.add(trialId);
    ctx.validateAfter(trialId, plan.brackets().get(b).rungLengths().get(rung));
  }

  /**
   * Starts new trials: first within each bracket's share of the slots, then in any bracket with
   * trials left.
   */
  private void fill(SearchContext ctx) {
    for (boolean lend : new boolean[] {false, true}) {
      for (int b = 0; b < state.brackets.size(); b++) {
        BracketState bracket = state.brackets.get(b);
        AshaPlan.Bracket p = plan.brackets().get(b);
        while (ctx.freeSlots() > 0
            && canCreate(bracket, p)
            && (lend || bracket.active < p.maxConcurrentTrials())) {
          long id = ctx.create(sampler.next(ctx.rng()));
          bracket.created++;
          bracket.counted++;
          state.trialBracket.put(id, b);
          state.trialRung.put(id, 0);
          train(ctx, b, id, 0);
        }
      }
    }
  }

  private static boolean canCreate(BracketState bracket, AshaPlan.Bracket p) {
    return bracket.counted < p.maxTrials() && bracket.created < 2 * p.maxTrials();
  }

  /**
   * Once no new trial can enter rung 0, close unpromoted trials of every rung that can no longer
   * change.
   */
  private void closeOut(SearchContext ctx, int b) {
    BracketState bracket = state.brackets.get(b);
    if (plan.stopOnce()
        || canCreate(bracket, plan.brackets().get(b))
        || bracket.rungs.get(0).size() < bracket.counted) {
      return;
    }
    for (int r = 0; r < bracket.rungs.size() - 1; r++) {
      if (bracket.outstanding[r] > 0) {
        return;
      }
      bracket
          .rungs
          .get(r)
          .sweepUnpromoted(
              e -> {
                if (!ctx.isFinished(e.trial)) {
                  ctx.close(e.trial);
                }
              });
    }
  }

  @Override
  public long expectedTotalUnits() {
    long total = 0;
    for (AshaPlan.Bracket b : plan.brackets()) {
      long previous = 0;
      for (int i = 0; i < b.numRungs(); i++) {
        long length = b.rungLengths().get(i);
        total += Math.max(b.trialsReaching(i, plan.divisor()), 1) * (length - previous);
        previous = length;
      }
    }
    return total;
  }

  @Override
  public String groupOf(long trialId) {
    Integer b = state.trialBracket.get(trialId);
    return b == null ? "" : group(b);
  }

  private String group(int b) {
    return "bracket " + (b + 1) + " (" + plan.brackets().get(b).numRungs() + " rungs)";
  }

  /**
   * Each bracket's rungs as its state holds them: a rung's ranked entries, best first (promoted,
   * stopped once closed, else waiting; the last rung's completed), then the trials training toward
   * it. The promotion variant ranks nobody in the last rung: the trials sent there are listed by
   * how far they got.
   */
  @Override
  public List<BracketRungs> rungs(SearchContext ctx) {
    List<BracketRungs> out = new ArrayList<>();
    for (int b = 0; b < state.brackets.size(); b++) {
      BracketState bracket = state.brackets.get(b);
      List<Long> lengths = plan.brackets().get(b).rungLengths();
      int top = lengths.size() - 1;
      List<BracketRungs.Rung> rungs = new ArrayList<>();
      for (int r = 0; r <= top; r++) {
        long length = lengths.get(r);
        List<BracketRungs.Member> members = new ArrayList<>();
        TreeSet<Long> ranked = new TreeSet<>();
        for (Entry e : bracket.rungs.get(r).ranked()) {
          ranked.add(e.trial);
          members.add(
              new BracketRungs.Member(
                  e.trial,
                  e.promoted
                      ? BracketRungs.Outcome.PROMOTED
                      : r == top
                          ? (ctx.trained(e.trial) >= length
                              ? BracketRungs.Outcome.COMPLETED
                              : BracketRungs.Outcome.STOPPED)
                          : ctx.isFinished(e.trial)
                              ? BracketRungs.Outcome.STOPPED
                              : BracketRungs.Outcome.WAITING));
        }
        for (var at : state.trialRung.entrySet()) {
          long trial = at.getKey();
          if (at.getValue() != r || state.trialBracket.get(trial) != b || ranked.contains(trial)) {
            continue;
          }
          if (state.training.contains(trial)) {
            members.add(new BracketRungs.Member(trial, BracketRungs.Outcome.TRAINING));
          } else if (r == top && ctx.trained(trial) >= length) {
            members.add(new BracketRungs.Member(trial, BracketRungs.Outcome.COMPLETED));
          } else if (r == top && ctx.trained(trial) > 0) {
            // failed on its way to the last rung, which ranks nobody
            members.add(new BracketRungs.Member(trial, BracketRungs.Outcome.STOPPED));
          }
          // else: never trained (invalid hyperparameters, or a trial that failed before its first
          // result): no rung
        }
        rungs.add(new BracketRungs.Rung(length, members));
      }
      out.add(new BracketRungs(group(b), rungs));
    }
    return out;
  }

  @Override
  public JsonNode saveState() {
    ObjectNode node = StateCodec.object();
    node.set("asha", StateCodec.toTree(state));
    node.set("sampler", sampler.saveState());
    return node;
  }

  @Override
  public void loadState(JsonNode node) {
    state = StateCodec.fromTree(node.get("asha"), State.class);
    sampler.loadState(node.get("sampler"));
  }
}
