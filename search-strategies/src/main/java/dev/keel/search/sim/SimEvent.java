package dev.keel.search.sim;

import dev.keel.api.length.TrainingLength;
import dev.keel.search.ExitReason;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import java.util.List;

/**
 * One call the simulator made on a searcher; {@link #deliver} makes the same call on any searcher.
 */
public sealed interface SimEvent {
  List<Operation> deliver(Searcher searcher);

  record Initial() implements SimEvent {
    @Override
    public List<Operation> deliver(Searcher s) {
      return s.initialOperations();
    }
  }

  record TrialCreated(long trialId) implements SimEvent {
    @Override
    public List<Operation> deliver(Searcher s) {
      return s.trialCreated(trialId);
    }
  }

  record ValidationCompleted(long trialId, double metric, TrainingLength length)
      implements SimEvent {
    @Override
    public List<Operation> deliver(Searcher s) {
      return s.validationCompleted(trialId, metric, length);
    }
  }

  record TrialClosed(long trialId) implements SimEvent {
    @Override
    public List<Operation> deliver(Searcher s) {
      return s.trialClosed(trialId);
    }
  }

  record TrialExitedEarly(long trialId, ExitReason reason) implements SimEvent {
    @Override
    public List<Operation> deliver(Searcher s) {
      return s.trialExitedEarly(trialId, reason);
    }
  }

  /** An event and the searcher's answer, at a simulated time. */
  record Exchange(double time, SimEvent event, List<Operation> answer) {}
}
