package dev.keel.workflows.experiment;

import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialCommand;
import java.util.TreeSet;

/**
 * The experiment's lifecycle state and the user's requests that change it. Pause, activate, kill
 * and kill-one-trial arrive as signals at any time; they are only noted then, and applied between
 * searcher steps by {@link #apply}, so trials see them in a replayable order. Pure: what applying
 * does to trials goes through {@link Effects}.
 */
final class ExperimentControl {

  /**
   * What applying a request does outside this class; the experiment workflow signals its trials.
   */
  interface Effects {
    /** Every trial that still takes commands, by id. */
    void commandAll(TrialCommand command);

    void command(long trialId, TrialCommand command);

    /**
     * A killed experiment starts none of the trials the searcher created but the experiment did not
     * start yet.
     */
    void forgetUnstartedTrials();

    /** The lifecycle state changed (search attributes follow it). */
    void stateChanged();
  }

  private static final TrialCommand KILL = TrialCommand.newBuilder().setKill(true).build();
  private static final TrialCommand PAUSE = TrialCommand.newBuilder().setPause(true).build();
  private static final TrialCommand ACTIVATE = TrialCommand.newBuilder().setActivate(true).build();

  private ExperimentState.State state = ExperimentState.State.ACTIVE;
  private boolean pauseRequested;
  private boolean activateRequested;
  private boolean killRequested;
  private final TreeSet<Long> trialsToKill = new TreeSet<>();

  void pause() {
    pauseRequested = true;
  }

  void activate() {
    activateRequested = true;
  }

  void kill() {
    killRequested = true;
  }

  void killTrial(long trialId) {
    trialsToKill.add(trialId);
  }

  /** A request that {@link #apply} has yet to carry out. */
  boolean pending() {
    return pauseRequested
        || activateRequested
        || (killRequested && state != ExperimentState.State.KILLED)
        || !trialsToKill.isEmpty();
  }

  /**
   * Carries out the requests noted so far: kill first, then single trials, then pause and activate.
   */
  void apply(Effects effects) {
    if (killRequested && state != ExperimentState.State.KILLED) {
      state = ExperimentState.State.KILLED;
      effects.forgetUnstartedTrials();
      effects.commandAll(KILL);
      effects.stateChanged();
    }
    while (!trialsToKill.isEmpty()) {
      effects.command(trialsToKill.pollFirst(), KILL);
    }
    if (pauseRequested) {
      pauseRequested = false;
      if (state == ExperimentState.State.ACTIVE) {
        state = ExperimentState.State.PAUSED;
        effects.commandAll(PAUSE);
        effects.stateChanged();
      }
    }
    if (activateRequested) {
      activateRequested = false;
      if (state == ExperimentState.State.PAUSED) {
        state = ExperimentState.State.ACTIVE;
        effects.commandAll(ACTIVATE);
        effects.stateChanged();
      }
    }
  }

  /** Read live, not only at {@link #apply}: a kill stops the searcher's work at once. */
  boolean killRequested() {
    return killRequested;
  }

  boolean paused() {
    return state == ExperimentState.State.PAUSED;
  }

  ExperimentState.State state() {
    return state;
  }

  /** The state carried over continue-as-new; a carried KILLED keeps the experiment killed. */
  void restore(ExperimentState.State carried) {
    state = carried;
    killRequested = carried == ExperimentState.State.KILLED;
  }

  /** The experiment could not start. */
  void failed() {
    state = ExperimentState.State.ERRORED;
  }

  /**
   * Every trial ended: the experiment ends KILLED if the user asked, ERRORED when its trials failed
   * without one completing (nothing to register, so the reason must not hide behind COMPLETED),
   * else COMPLETED.
   */
  void finish(boolean trialsFailedWithoutACompletedOne) {
    state =
        killRequested
            ? ExperimentState.State.KILLED
            : trialsFailedWithoutACompletedOne
                ? ExperimentState.State.ERRORED
                : ExperimentState.State.COMPLETED;
  }
}
