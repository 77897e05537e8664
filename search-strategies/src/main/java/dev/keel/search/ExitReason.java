package dev.keel.search;

/** Why a trial ended without being closed by the searcher. */
public enum ExitReason {
  /** The trial failed (after its restarts); it counts as the worst result at its current length. */
  ERRORED,
  /** A user stopped the trial; treated like {@link #ERRORED}. */
  USER_STOPPED,
  /** The model rejected the hyperparameters; the trial is forgotten and, where the searcher can, replaced. */
  INVALID_HP
}
