package dev.keel.search.pbt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.search.ExitReason;
import dev.keel.search.core.SearchContext;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.HyperparameterSpace;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * Population based training in synchronous rounds. After every member of round k has reported, the
 * worst {@code replacedPerRound} live members close; each is replaced by a child of one of the best
 * {@code replacedPerRound} (best first, cycling) that starts from its parent's checkpoint at the
 * round's length with explored hyperparameters. Members that failed are replaced the same way.
 * Everyone then trains to the next round's length; after the last round all close.
 */
public final class PbtSearch implements SearchMethod {
  private final PbtPlan plan;
  private final HyperparameterSpace space;
  private final Explorer explorer;
  private State state = new State();

  static final class State {
    int round;
    int created;
    ArrayList<Long> members = new ArrayList<>();
    TreeMap<Long, Double> results = new TreeMap<>();
    TreeMap<Long, Integer> createdInRound = new TreeMap<>();
  }

  public PbtSearch(PbtPlan plan, HyperparameterSpace space) {
    this.plan = plan;
    this.space = space;
    this.explorer = new Explorer(space, plan.perturbFactor(), plan.resampleProbability());
  }

  public PbtPlan plan() {
    return plan;
  }

  @Override
  public void start(SearchContext ctx) {
    for (int i = 0; i < plan.population(); i++) {
      long id = ctx.create(space.sample(ctx.rng()));
      join(id);
      ctx.validateAfter(id, plan.roundLength(0));
    }
  }

  @Override
  public void validationCompleted(SearchContext ctx, long trialId, double score, long units) {
    state.results.put(trialId, score);
    nextRoundIfComplete(ctx);
  }

  @Override
  public void trialExitedEarly(SearchContext ctx, long trialId, ExitReason reason) {
    if (state.members.contains(trialId) && !state.results.containsKey(trialId)) {
      state.results.put(trialId, WORST_SCORE);
    }
    nextRoundIfComplete(ctx);
  }

  private void join(long id) {
    state.members.add(id);
    state.createdInRound.put(id, state.round);
    state.created++;
  }

  private void nextRoundIfComplete(SearchContext ctx) {
    if (state.results.size() < state.members.size()) {
      return;
    }
    List<Long> alive = new ArrayList<>(state.members);
    alive.sort(
        Comparator.<Long>comparingDouble(state.results::get)
            .thenComparing(Comparator.naturalOrder()));
    alive.removeIf(ctx::isFinished);
    int k = state.round;
    if (k == plan.rounds() - 1) {
      alive.forEach(ctx::close);
      state.members.clear();
      state.results.clear();
      return;
    }
    int cut = Math.min(plan.replacedPerRound(), alive.size() / 2);
    List<Long> parents = new ArrayList<>(alive.subList(0, cut));
    List<Long> survivors = new ArrayList<>(alive.subList(0, alive.size() - cut));
    alive.subList(alive.size() - cut, alive.size()).forEach(ctx::close);
    state.members = new ArrayList<>();
    state.results.clear();
    state.round = k + 1;
    survivors.forEach(state.members::add);
    long forkAt = plan.roundLength(k);
    long next = plan.roundLength(k + 1);
    int children = Math.min(plan.population() - survivors.size(), plan.maxTrials() - state.created);
    if (parents.isEmpty() && !survivors.isEmpty()) {
      parents.add(survivors.get(0));
    }
    for (int c = 0; c < children && !parents.isEmpty(); c++) {
      long parent = parents.get(c % parents.size());
      long id = ctx.createFrom(explorer.explore(ctx.hparams(parent), ctx.rng()), parent, forkAt);
      state.members.add(id);
      state.createdInRound.put(id, state.round);
      state.created++;
      ctx.validateAfter(id, next);
    }
    for (long id : survivors) {
      ctx.validateAfter(id, next);
    }
  }

  @Override
  public long expectedTotalUnits() {
    return plan.population() * plan.maxLength();
  }

  @Override
  public String groupOf(long trialId) {
    Integer r = state.createdInRound.get(trialId);
    return r == null ? "" : "round " + (r + 1);
  }

  @Override
  public JsonNode saveState() {
    ObjectNode node = StateCodec.object();
    node.set("pbt", StateCodec.toTree(state));
    return node;
  }

  @Override
  public void loadState(JsonNode node) {
    state = StateCodec.fromTree(node.get("pbt"), State.class);
  }
}
