package dev.keel.search;

import dev.keel.api.v1.TrialReport;

/** Why a trial ended without being closed by the searcher. */
public enum ExitReason {
  /** The trial failed (after its restarts); it counts as the worst result at its current length. */
  ERRORED,
  /** A user stopped the trial; treated like {@link #ERRORED}. */
  USER_STOPPED,
  /**
   * The model rejected the hyperparameters; the trial is forgotten and, where the searcher can,
   * replaced.
   */
  INVALID_HP;

  /**
   * The searcher's reason for a trial's exit report: the one mapping from the workflow messages.
   */
  public static ExitReason of(TrialReport.Exit.Reason reason) {
    return switch (reason) {
      case ERRORED -> ERRORED;
      case USER_STOPPED -> USER_STOPPED;
      case INVALID_HP -> INVALID_HP;
      case REASON_UNSPECIFIED, UNRECOGNIZED ->
          throw new IllegalArgumentException("a trial exit without a reason");
    };
  }
}
