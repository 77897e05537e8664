package dev.keel.search;

import dev.keel.api.length.TrainingLength;
import java.util.List;

/**
 * An event-driven hyperparameter searcher (Determined's shape). The experiment calls {@link
 * #initialOperations()} once, carries out the operations it gets back and reports what happened
 * through the other event methods, each of which answers with further operations. Trial ids are
 * assigned by the searcher (1, 2, 3, ...).
 *
 * <p>Deterministic: the same config (seed included) and the same events give the same operations on
 * any machine. {@link #snapshot()} captures the full state; {@link Searchers#restore(String)}
 * rebuilds a searcher that answers exactly as this one would. Not thread-safe (workflow code is
 * single-threaded).
 *
 * <p>Protocol: a {@link Create} is always followed, in the same batch, by that trial's first {@link
 * ValidateAfter}. A trial has at most one outstanding {@code ValidateAfter}; its answer is {@link
 * #validationCompleted} with the same length. {@link Close} is answered by {@link #trialClosed}. A
 * trial that ends on its own is reported with {@link #trialExitedEarly} and needs no {@code Close}.
 * {@link Shutdown} comes once, after the last trial has closed or exited. Calls that break the
 * protocol throw {@link IllegalStateException} or {@link IllegalArgumentException} and leave the
 * searcher unchanged.
 */
public interface Searcher {

  /** The searcher's name from the config ({@code random}, {@code adaptive_asha}, ...). */
  String name();

  /** The first operations: called exactly once, before any event. */
  List<Operation> initialOperations();

  /** The workflow started trial {@code trialId} (acknowledges a {@link Create}). */
  List<Operation> trialCreated(long trialId);

  /**
   * Trial {@code trialId} reached {@code length} (its outstanding {@link ValidateAfter}) and scored
   * {@code metric}.
   */
  List<Operation> validationCompleted(long trialId, double metric, TrainingLength length);

  /** Trial {@code trialId} finished after a {@link Close}. */
  List<Operation> trialClosed(long trialId);

  /** Trial {@code trialId} ended without a {@link Close}. */
  List<Operation> trialExitedEarly(long trialId, ExitReason reason);

  /** Fraction of the search done, in [0, 1]; 1 once {@link Shutdown} was sent. Never decreases. */
  double progress();

  /**
   * The trial's group for previews and dashboards ("bracket 2 (4 rungs)", "round 3"); empty if
   * none.
   */
  String trialGroup(long trialId);

  /**
   * The searcher's rungs per bracket with its decisions so far (which trials reached each rung,
   * which it promoted, which it stopped there); empty for searchers without rungs. Read-only: a
   * query may call it.
   */
  default List<BracketRungs> rungs() {
    return List.of();
  }

  /** True once {@link Shutdown} was sent. */
  boolean isShutdown();

  /** The full state as a JSON document (config, options, PRNG, trials, algorithm state). */
  String snapshot();
}
