package dev.keel.workflows.experiment;

import dev.keel.api.length.TrainingLength;
import java.util.Collection;
import java.util.TreeSet;

/**
 * A trial's words for people, in one place: its current details, the errors its state and exit
 * report show, and its training step's summary.
 */
final class TrialMessages {
  static final String KILLED = "killed by the user";

  /** Why the step in flight is canceled. */
  static final String STEP_CANCELED = "trial killed";

  private TrialMessages() {}

  /** The current details while a gang of ranks waits. */
  static String waiting(long trialId, String waiting) {
    return "trial " + trialId + ": " + waiting;
  }

  static String step(long trialId, TrainingLength length) {
    return "train trial " + trialId + " to " + length;
  }

  static String metricNotReported(String metric, Collection<String> reported) {
    return "searcher.metric '"
        + metric
        + "' is not reported by the trial (it reports "
        + new TreeSet<>(reported)
        + ")";
  }
}
