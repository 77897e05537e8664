package dev.keel.search.hyperband;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.search.BracketRungs;
import dev.keel.search.ExitReason;
import dev.keel.search.core.SearchContext;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.HyperparameterSampler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * Runs the brackets of a {@link HyperbandPlan}: the first {@code s_max + 1} at once, each later one
 * when an earlier one finishes. Within a bracket every rung is synchronous: all its trials must
 * report before the best continue and the rest close. Failed trials rank last; a trial with invalid
 * hyperparameters in a bracket's first rung is replaced (at most as many times as the bracket has
 * trials).
 */
public final class HyperbandSearch implements SearchMethod {
  private final HyperbandPlan plan;
  private final HyperparameterSampler sampler;
  private State state = new State();

  static final class State {
    int nextBracket;
    ArrayList<Run> runs = new ArrayList<>();
    TreeMap<Long, Integer> trialRun = new TreeMap<>();
  }

  /** A bracket in progress. */
  static final class Run {
    int bracket;
    int rung;
    int replacements;
    ArrayList<Long> members = new ArrayList<>();
    TreeMap<Long, Double> results = new TreeMap<>();
    boolean done;
  }

  public HyperbandSearch(HyperbandPlan plan, HyperparameterSampler sampler) {
    this.plan = plan;
    this.sampler = sampler;
  }

  @Override
  public void start(SearchContext ctx) {
    for (int i = 0; i <= plan.sMax() && state.nextBracket < plan.schedule().size(); i++) {
      launch(ctx);
    }
  }

  @Override
  public void validationCompleted(SearchContext ctx, long trialId, double score, long units) {
    sampler.observe(ctx.hparams(trialId), units, score);
    int r = state.trialRun.get(trialId);
    state.runs.get(r).results.put(trialId, score);
    advanceIfComplete(ctx, r);
  }

  @Override
  public void trialExitedEarly(SearchContext ctx, long trialId, ExitReason reason) {
    int r = state.trialRun.get(trialId);
    Run run = state.runs.get(r);
    if (run.done || !run.members.contains(trialId)) {
      return;
    }
    if (reason == ExitReason.INVALID_HP && run.rung == 0 && !run.results.containsKey(trialId)) {
      run.members.remove(trialId);
      sampler.forget(ctx.hparams(trialId));
      if (run.replacements < plan.schedule().get(run.bracket).trials()) {
        run.replacements++;
        long id = ctx.create(sampler.next(ctx.rng()));
        state.trialRun.put(id, r);
        run.members.add(id);
        ctx.validateAfter(id, plan.schedule().get(run.bracket).rungLengths().get(0));
      }
    } else if (!run.results.containsKey(trialId)) {
      run.results.put(trialId, WORST_SCORE);
    }
    advanceIfComplete(ctx, r);
  }

  private void launch(SearchContext ctx) {
    int b = state.nextBracket++;
    HyperbandPlan.Bracket bracket = plan.schedule().get(b);
    Run run = new Run();
    run.bracket = b;
    state.runs.add(run);
    int r = state.runs.size() - 1;
    for (int i = 0; i < bracket.trials(); i++) {
      long id = ctx.create(sampler.next(ctx.rng()));
      state.trialRun.put(id, r);
      run.members.add(id);
      ctx.validateAfter(id, bracket.rungLengths().get(0));
    }
  }

  private void advanceIfComplete(SearchContext ctx, int r) {
    Run run = state.runs.get(r);
    if (run.done || run.results.size() < run.members.size()) {
      return;
    }
    HyperbandPlan.Bracket bracket = plan.schedule().get(run.bracket);
    List<Long> ranked = new ArrayList<>(run.members);
    ranked.sort(
        Comparator.<Long>comparingDouble(run.results::get)
            .thenComparing(Comparator.naturalOrder()));
    ranked.removeIf(ctx::isFinished);
    boolean last = run.rung == bracket.s();
    int keep = last ? 0 : Math.min(ranked.size(), bracket.rungTrials().get(run.rung + 1));
    for (long id : ranked.subList(keep, ranked.size())) {
      ctx.close(id);
    }
    run.members = new ArrayList<>(ranked.subList(0, keep));
    run.results.clear();
    if (keep == 0) {
      run.done = true;
      if (state.nextBracket < plan.schedule().size()) {
        launch(ctx);
      }
      return;
    }
    run.rung++;
    for (long id : run.members) {
      ctx.validateAfter(id, bracket.rungLengths().get(run.rung));
    }
  }

  @Override
  public long expectedTotalUnits() {
    long total = 0;
    for (HyperbandPlan.Bracket b : plan.schedule()) {
      long previous = 0;
      for (int i = 0; i <= b.s(); i++) {
        total += (long) b.rungTrials().get(i) * (b.rungLengths().get(i) - previous);
        previous = b.rungLengths().get(i);
      }
    }
    return total;
  }

  @Override
  public String groupOf(long trialId) {
    Integer r = state.trialRun.get(trialId);
    if (r == null) {
      return "";
    }
    return group(state.runs.get(r).bracket);
  }

  private String group(int b) {
    return "bracket " + (b + 1) + " (s=" + plan.schedule().get(b).s() + ")";
  }

  /**
   * Every scheduled bracket's rungs. A rung is synchronous, so a trial is at each rung up to the
   * longest it trained to: promoted past the earlier ones; at its last one promoted while its
   * bracket trains the next rung with it, waiting while the rung's other trials still train,
   * stopped once closed, completed at the top. Trials that never reached a rung (invalid
   * hyperparameters, failures before a result) are on none.
   */
  @Override
  public List<BracketRungs> rungs(SearchContext ctx) {
    List<List<List<BracketRungs.Member>>> members = new ArrayList<>();
    for (HyperbandPlan.Bracket bracket : plan.schedule()) {
      List<List<BracketRungs.Member>> rungs = new ArrayList<>();
      bracket.rungLengths().forEach(length -> rungs.add(new ArrayList<>()));
      members.add(rungs);
    }
    state.trialRun.forEach(
        (trial, r) -> {
          Run run = state.runs.get(r);
          List<Long> lengths = plan.schedule().get(run.bracket).rungLengths();
          List<List<BracketRungs.Member>> rungs = members.get(run.bracket);
          int reached = -1;
          while (reached + 1 < lengths.size() && ctx.trained(trial) >= lengths.get(reached + 1)) {
            reached++;
          }
          boolean member = !run.done && run.members.contains(trial);
          for (int i = 0; i <= reached; i++) {
            BracketRungs.Outcome outcome =
                i < reached || (member && run.rung > reached)
                    ? BracketRungs.Outcome.PROMOTED
                    : i == lengths.size() - 1
                        ? BracketRungs.Outcome.COMPLETED
                        : member ? BracketRungs.Outcome.WAITING : BracketRungs.Outcome.STOPPED;
            rungs.get(i).add(new BracketRungs.Member(trial, outcome));
          }
          if (member && run.rung > reached && !ctx.isFinished(trial)) {
            rungs.get(run.rung).add(new BracketRungs.Member(trial, BracketRungs.Outcome.TRAINING));
          }
        });
    List<BracketRungs> out = new ArrayList<>();
    for (int b = 0; b < plan.schedule().size(); b++) {
      List<Long> lengths = plan.schedule().get(b).rungLengths();
      List<BracketRungs.Rung> rungs = new ArrayList<>();
      for (int i = 0; i < lengths.size(); i++) {
        rungs.add(new BracketRungs.Rung(lengths.get(i), members.get(b).get(i)));
      }
      out.add(new BracketRungs(group(b), rungs));
    }
    return out;
  }

  @Override
  public JsonNode saveState() {
    ObjectNode node = StateCodec.object();
    node.set("hyperband", StateCodec.toTree(state));
    node.set("sampler", sampler.saveState());
    return node;
  }

  @Override
  public void loadState(JsonNode node) {
    state = StateCodec.fromTree(node.get("hyperband"), State.class);
    sampler.loadState(node.get("sampler"));
  }
}
