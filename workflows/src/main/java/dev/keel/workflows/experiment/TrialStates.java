package dev.keel.workflows.experiment;

import java.util.Set;

/** The states of trials and experiments, as they appear in queries, the catalog and search attributes. */
final class TrialStates {
  static final String ACTIVE = "ACTIVE";
  static final String PAUSED = "PAUSED";
  static final String COMPLETED = "COMPLETED";
  static final String ERRORED = "ERRORED";
  static final String INVALID_HP = "INVALID_HP";
  static final String KILLED = "KILLED";
  static final Set<String> TERMINAL = Set.of(COMPLETED, ERRORED, INVALID_HP, KILLED);

  private TrialStates() {}

  static boolean isTerminal(String state) {
    return TERMINAL.contains(state);
  }
}
