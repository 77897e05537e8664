package dev.keel.workflows.experiment;

import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialState;
import java.util.Set;

/** Which trial states are final, and the final state each way of exiting leads to. */
final class TrialStates {
  private static final Set<TrialState.State> TERMINAL =
      Set.of(
          TrialState.State.COMPLETED,
          TrialState.State.ERRORED,
          TrialState.State.INVALID_HP,
          TrialState.State.KILLED);

  private TrialStates() {}

  static boolean isTerminal(TrialState.State state) {
    return TERMINAL.contains(state);
  }

  /**
   * The trial's state once it exited for {@code reason}; the trial and the experiment both record
   * it.
   */
  static TrialState.State afterExit(TrialReport.Exit.Reason reason) {
    return switch (reason) {
      case INVALID_HP -> TrialState.State.INVALID_HP;
      case USER_STOPPED -> TrialState.State.KILLED;
      case ERRORED -> TrialState.State.ERRORED;
      case REASON_UNSPECIFIED, UNRECOGNIZED ->
          throw new IllegalArgumentException("a trial exit without a reason");
    };
  }
}
