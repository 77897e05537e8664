package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialCommand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pause, activate and kill are noted when they arrive and carried out, in a fixed order, by apply.
 */
class ExperimentControlAppliesUserRequestsBetweenSearcherStepsTest {
  private final ExperimentControl control = new ExperimentControl();
  private final List<String> done = new ArrayList<>();
  private final ExperimentControl.Effects effects =
      new ExperimentControl.Effects() {
        @Override
        public void commandAll(TrialCommand command) {
          done.add("all " + command.getCommandCase());
        }

        @Override
        public void command(long trialId, TrialCommand command) {
          done.add(trialId + " " + command.getCommandCase());
        }

        @Override
        public void forgetUnstartedTrials() {
          done.add("forget unstarted");
        }

        @Override
        public void stateChanged() {
          done.add("state " + control.state());
        }
      };

  @Test
  void requestsWaitForApplyAndKillGoesFirst() {
    control.pause();
    control.killTrial(3);
    control.killTrial(1);
    control.kill();
    assertEquals(ExperimentState.State.ACTIVE, control.state(), "nothing happens before apply");
    assertTrue(control.killRequested(), "but a kill is seen at once");
    assertTrue(control.pending());
    control.apply(effects);
    assertEquals(List.of("forget unstarted", "all KILL", "state KILLED", "1 KILL", "3 KILL"), done);
    assertEquals(
        ExperimentState.State.KILLED, control.state(), "a killed experiment does not pause");
    assertFalse(control.pending());
  }

  @Test
  void pauseOnlyAnActiveExperimentAndActivateOnlyAPausedOne() {
    control.activate();
    control.apply(effects);
    assertTrue(done.isEmpty(), "activating an active experiment does nothing");
    control.pause();
    control.apply(effects);
    control.pause();
    control.apply(effects);
    assertTrue(control.paused());
    control.activate();
    control.apply(effects);
    assertEquals(List.of("all PAUSE", "state PAUSED", "all ACTIVATE", "state ACTIVE"), done);
  }

  @Test
  void anExperimentEndsKilledOnlyIfTheUserAsked() {
    control.finish(false);
    assertEquals(ExperimentState.State.COMPLETED, control.state());
    ExperimentControl killed = new ExperimentControl();
    killed.kill();
    killed.finish(true);
    assertEquals(ExperimentState.State.KILLED, killed.state());
  }

  @Test
  void anExperimentWhoseTrialsFailedWithoutACompletedOneEndsErrored() {
    control.finish(true);
    assertEquals(ExperimentState.State.ERRORED, control.state());
  }

  @Test
  void aKilledExperimentStaysKilledAcrossContinueAsNew() {
    control.restore(ExperimentState.State.KILLED);
    assertTrue(control.killRequested());
    assertFalse(control.pending(), "its trials were told in the run that was killed");
    control.finish(false);
    assertEquals(ExperimentState.State.KILLED, control.state());
  }
}
