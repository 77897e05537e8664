package dev.keel.search.method;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Value;
import dev.keel.search.ExitReason;
import dev.keel.search.core.SearchContext;
import dev.keel.search.core.SearchMethod;
import dev.keel.search.core.StateCodec;
import dev.keel.search.space.HyperparameterSampler;
import java.util.List;
import java.util.SortedMap;

/**
 * Runs {@code trials} trials, each trained to {@code max_length} and closed, keeping as many
 * running as {@code max_concurrent_trials} allows. Hyperparameters come from a fixed list (grid,
 * single) or a sampler that is asked only when a slot is free (random, TPE: the latter learns from
 * every finished trial). A trial with invalid hyperparameters is replaced by a new sample (not for
 * a grid point), at most {@code trials} times.
 */
public final class IndependentTrialsSearch implements SearchMethod {
  private final int trials;
  private final List<SortedMap<String, Value>> points;
  private final HyperparameterSampler sampler;
  private final long maxLength;
  private State state = new State();

  static final class State {
    int created;
    int counted;
    int invalid;
  }

  private IndependentTrialsSearch(
      int trials,
      List<SortedMap<String, Value>> points,
      HyperparameterSampler sampler,
      long maxLength) {
    this.trials = trials;
    this.points = points;
    this.sampler = sampler;
    this.maxLength = maxLength;
  }

  /** Trials at these points, in order (grid, single). */
  public static IndependentTrialsSearch ofPoints(
      List<SortedMap<String, Value>> points, long maxLength) {
    return new IndependentTrialsSearch(points.size(), List.copyOf(points), null, maxLength);
  }

  /** {@code trials} trials drawn from a sampler (random, TPE). */
  public static IndependentTrialsSearch ofSampler(
      int trials, HyperparameterSampler sampler, long maxLength) {
    return new IndependentTrialsSearch(trials, null, sampler, maxLength);
  }

  @Override
  public void start(SearchContext ctx) {
    fill(ctx);
  }

  @Override
  public void validationCompleted(SearchContext ctx, long trialId, double score, long units) {
    if (sampler != null) {
      sampler.observe(ctx.hparams(trialId), units, score);
    }
    ctx.close(trialId);
    fill(ctx);
  }

  @Override
  public void trialExitedEarly(SearchContext ctx, long trialId, ExitReason reason) {
    if (reason == ExitReason.INVALID_HP && sampler != null) {
      state.counted--;
      state.invalid++;
      sampler.forget(ctx.hparams(trialId));
    }
    fill(ctx);
  }

  private void fill(SearchContext ctx) {
    while (ctx.freeSlots() > 0 && state.counted < trials && state.created < 2 * trials) {
      SortedMap<String, Value> hparams =
          points != null ? points.get(state.created) : sampler.next(ctx.rng());
      long id = ctx.create(hparams);
      ctx.validateAfter(id, maxLength);
      state.created++;
      state.counted++;
    }
  }

  @Override
  public long expectedTotalUnits() {
    return trials * maxLength;
  }

  @Override
  public JsonNode saveState() {
    ObjectNode node = StateCodec.object();
    node.set("trials", StateCodec.toTree(state));
    node.set("sampler", sampler == null ? StateCodec.object() : sampler.saveState());
    return node;
  }

  @Override
  public void loadState(JsonNode node) {
    state = StateCodec.fromTree(node.get("trials"), State.class);
    if (sampler != null) {
      sampler.loadState(node.get("sampler"));
    }
  }
}
