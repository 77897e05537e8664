package dev.keel.workflows.experiment;

import dev.keel.api.checkpoint.BestCheckpoints;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialState;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the experiment knows of each of its trials, from their reports: state, lengths, checkpoints,
 * best metric, and which trials it asked to close. Pure; iterates trials by id, so whatever it
 * drives happens in the same order on every replay.
 */
final class TrialBook {
  private final Map<Long, TrialState.Builder> trials = new TreeMap<>();
  private final TreeSet<Long> closing = new TreeSet<>();
  private final boolean smallerIsBetter;

  TrialBook(boolean smallerIsBetter) {
    this.smallerIsBetter = smallerIsBetter;
  }

  /** Trials carried over continue-as-new, with their checkpoints, which tell the best. */
  void restore(List<TrialState> carried) {
    carried.forEach(t -> trials.put(t.getTrialId(), t.toBuilder()));
  }

  void add(TrialState.Builder trial) {
    trials.put(trial.getTrialId(), trial);
  }

  boolean contains(long trialId) {
    return trials.containsKey(trialId);
  }

  /** The trial's live record, or null if the experiment never started it. */
  TrialState.Builder get(long trialId) {
    return trials.get(trialId);
  }

  List<Long> ids() {
    return List.copyOf(trials.keySet());
  }

  /** The workflow id of a trial that still takes commands: started, and not ended. */
  Optional<String> listening(long trialId) {
    TrialState.Builder t = trials.get(trialId);
    return t == null || TrialStates.isTerminal(t.getState())
        ? Optional.empty()
        : Optional.of(t.getWorkflowId());
  }

  void closing(long trialId) {
    closing.add(trialId);
  }

  /**
   * Updates the trial and adds its catalog rows; the searcher is told elsewhere. Reports of unknown
   * trials are ignored.
   */
  void record(TrialReport report, CatalogBuffer catalog) {
    TrialState.Builder t = trials.get(report.getTrialId());
    if (t == null) {
      return;
    }
    switch (report.getEventCase()) {
      case VALIDATION -> {
        TrialReport.Validation v = report.getValidation();
        CheckpointRef checkpoint =
            v.getCheckpoint().toBuilder()
                .putMetrics(CheckpointMetrics.SEARCHER_METRIC, v.getMetric())
                .putMetrics(
                    CheckpointMetrics.LENGTH, (double) TrainingLength.of(v.getLength()).units())
                .build();
        t.setCompletedLength(v.getLength())
            .setLatestMetric(v.getMetric())
            .setLatestCheckpoint(checkpoint)
            .addCheckpoints(checkpoint)
            .addAllPeriodicCheckpoints(v.getPeriodicCheckpointsList())
            .setRestarts(v.getRestarts())
            .clearRanks()
            .addAllRanks(v.getRanksList());
        if (!t.hasBestMetric() || better(v.getMetric(), t.getBestMetric())) {
          t.setBestMetric(v.getMetric());
        }
        if (v.hasModel()) {
          t.setModel(v.getModel());
        }
        catalog.validation(t.getTrialId(), v);
      }
      case EXIT -> {
        TrialReport.Exit exit = report.getExit();
        t.setState(TrialStates.afterExit(exit.getReason()))
            .setError(exit.getMessage())
            .setRestarts(exit.getRestarts())
            .addAllPeriodicCheckpoints(exit.getWrittenCheckpointsList());
        catalog.periodicCheckpoints(t.getTrialId(), exit.getWrittenCheckpointsList());
        catalog.trial(t.build());
      }
      case CLOSED -> {
        t.setState(TrialState.State.COMPLETED);
        closing.remove(t.getTrialId());
        catalog.trial(t.build());
      }
      case EVENT_NOT_SET -> {}
    }
  }

  /**
   * The checkpoint of {@code trialId}'s last validation at or before {@code length}: where a fork
   * of it starts.
   */
  Optional<CheckpointRef> checkpointAt(long trialId, TrainingLength length) {
    TrialState.Builder parent = trials.get(trialId);
    if (parent == null) {
      return Optional.empty();
    }
    CheckpointRef found = null;
    for (CheckpointRef c : parent.getCheckpointsList()) {
      if (c.getMetricsOrDefault(CheckpointMetrics.LENGTH, -1) <= length.units()) {
        found = c;
      }
    }
    return Optional.ofNullable(found);
  }

  /** Some trial will still signal: it trains toward its target or was asked to close. */
  boolean anyBusy() {
    return trials.values().stream()
        .anyMatch(
            t ->
                !TrialStates.isTerminal(t.getState())
                    && (TrainingLength.of(t.getCompletedLength())
                            .isShorterThan(TrainingLength.of(t.getTargetLength()))
                        || closing.contains(t.getTrialId())));
  }

  boolean allEnded() {
    return trials.values().stream().allMatch(t -> TrialStates.isTerminal(t.getState()));
  }

  /** The best validated checkpoint of the experiment and the trial that took it. */
  record Best(long trialId, CheckpointRef checkpoint) {
    double metric() {
      return checkpoint.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN);
    }
  }

  /**
   * The best validated checkpoint of all trials, as {@link BestCheckpoints} ranks them (ties
   * included), with its trial: the experiment's best is the checkpoint a pipeline registers, not
   * another trial's tie. Empty before any validation.
   */
  Optional<Best> best() {
    Comparator<CheckpointRef> bestFirst = BestCheckpoints.bestFirst(smallerIsBetter);
    Best best = null;
    for (TrialState.Builder t : trials.values()) {
      for (CheckpointRef c : t.getCheckpointsList()) {
        if (BestCheckpoints.validated(c)
            && (best == null || bestFirst.compare(c, best.checkpoint()) < 0)) {
          best = new Best(t.getTrialId(), c);
        }
      }
    }
    return Optional.ofNullable(best);
  }

  OptionalDouble bestMetric() {
    return best().map(b -> OptionalDouble.of(b.metric())).orElse(OptionalDouble.empty());
  }

  /** The trial of {@link #bestCheckpoint()}; 0 before any validation. */
  long bestTrialId() {
    return best().map(Best::trialId).orElse(0L);
  }

  Optional<CheckpointRef> bestCheckpoint() {
    return best().map(Best::checkpoint);
  }

  /**
   * Why the search found nothing, when no trial completed and some failed (ERRORED or INVALID_HP):
   * the first failed trial's error, with how many failed. Empty when a trial completed or none
   * failed.
   */
  Optional<String> failure() {
    if (trials.values().stream().anyMatch(t -> t.getState() == TrialState.State.COMPLETED)) {
      return Optional.empty();
    }
    List<TrialState.Builder> failed =
        trials.values().stream()
            .filter(
                t ->
                    t.getState() == TrialState.State.ERRORED
                        || t.getState() == TrialState.State.INVALID_HP)
            .toList();
    if (failed.isEmpty()) {
      return Optional.empty();
    }
    TrialState.Builder first = failed.get(0);
    String error = first.getError().isBlank() ? first.getState().name() : first.getError();
    return Optional.of(
        (failed.size() == trials.size()
                ? "every trial failed"
                : failed.size() + " of " + trials.size() + " trials failed and none completed")
            + "; trial "
            + first.getTrialId()
            + ": "
            + error);
  }

  /** Every trial as it stands, by id. */
  List<TrialState> snapshot() {
    return trials.values().stream().map(TrialState.Builder::build).toList();
  }

  private boolean better(double a, double b) {
    return smallerIsBetter ? a < b : a > b;
  }
}
