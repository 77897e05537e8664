package dev.keel.workflows.experiment;

import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialState;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The experiment's commands to a trial. The signal handler only queues them; the trial applies them
 * between steps, so that they take effect in a replayable order. A kill is also noted at once: it
 * cancels the step in flight instead of waiting for it.
 */
final class TrialInbox {
  private final Deque<TrialCommand> commands = new ArrayDeque<>();
  private boolean paused;
  private boolean closing;
  private boolean killed;

  /** Queues {@code command}; returns whether it is a kill. */
  boolean add(TrialCommand command) {
    commands.add(command);
    if (command.getCommandCase() == TrialCommand.CommandCase.KILL) {
      killed = true;
      return true;
    }
    return false;
  }

  boolean isEmpty() {
    return commands.isEmpty();
  }

  boolean killed() {
    return killed;
  }

  boolean paused() {
    return paused;
  }

  /** The searcher has no more work for the trial: it ends once it trained the target. */
  boolean closing() {
    return closing;
  }

  /** A trial of a paused experiment starts paused. */
  void startPaused(TrialProgress progress) {
    paused = true;
    progress.setState(TrialState.State.PAUSED);
  }

  /** Applies the queued commands in the order they came. */
  void apply(TrialProgress progress) {
    while (!commands.isEmpty()) {
      TrialCommand c = commands.poll();
      switch (c.getCommandCase()) {
        case TRAIN_TO_LENGTH -> progress.extendTarget(TrainingLength.of(c.getTrainToLength()));
        case CLOSE -> closing = true;
        case KILL -> killed = true;
        case PAUSE -> {
          paused = true;
          progress.setState(TrialState.State.PAUSED);
        }
        case ACTIVATE -> {
          paused = false;
          progress.setState(TrialState.State.ACTIVE);
        }
        case COMMAND_NOT_SET -> {}
      }
    }
  }
}
