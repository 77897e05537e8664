package dev.keel.workflows.experiment;

import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialState;
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
  private OptionalDouble bestMetric = OptionalDouble.empty();
  private long bestTrialId;

  TrialBook(boolean smallerIsBetter) {
    this.smallerIsBetter = smallerIsBetter;
  }

  /** Trials carried over continue-as-new. The best is not: it is found again at the next report. */
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
    return t == null || TrialStates.isTerminal(t.getState()) ? Optional.empty() : Optional.of(t.getWorkflowId());
  }

  void closing(long trialId) {
    closing.add(trialId);
  }

  /** Updates the trial and adds its catalog rows; the searcher is told elsewhere. Reports of unknown trials are ignored. */
  void record(TrialReport report, CatalogBuffer catalog) {
    TrialState.Builder t = trials.get(report.getTrialId());
    if (t == null) {
      return;
    }
    switch (report.getEventCase()) {
      case VALIDATION -> {
        TrialReport.Validation v = report.getValidation();
        CheckpointRef checkpoint = v.getCheckpoint().toBuilder()
            .putMetrics(CheckpointMetrics.SEARCHER_METRIC, v.getMetric())
            .putMetrics(CheckpointMetrics.LENGTH, TrainingLength.of(v.getLength()).units()).build();
        t.setCompletedLength(v.getLength()).setLatestMetric(v.getMetric()).setLatestCheckpoint(checkpoint)
            .addCheckpoints(checkpoint).addAllPeriodicCheckpoints(v.getPeriodicCheckpointsList())
            .setRestarts(v.getRestarts()).clearRanks().addAllRanks(v.getRanksList());
        if (!t.hasBestMetric() || better(v.getMetric(), t.getBestMetric())) {
          t.setBestMetric(v.getMetric());
        }
        catalog.validation(t.getTrialId(), v);
      }
      case EXIT -> {
        TrialReport.Exit exit = report.getExit();
        t.setState(TrialStates.afterExit(exit.getReason())).setError(exit.getMessage()).setRestarts(exit.getRestarts())
            .addAllPeriodicCheckpoints(exit.getWrittenCheckpointsList());
        catalog.periodicCheckpoints(t.getTrialId(), exit.getWrittenCheckpointsList());
        catalog.trial(t.build());
      }
      case CLOSED -> {
        t.setState(TrialState.State.COMPLETED);
        closing.remove(t.getTrialId());
        catalog.trial(t.build());
      }
      case EVENT_NOT_SET -> { }
    }
    updateBest();
  }

  /** The checkpoint of {@code trialId}'s last validation at or before {@code length}: where a fork of it starts. */
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
    return trials.values().stream().anyMatch(t -> !TrialStates.isTerminal(t.getState())
        && (TrainingLength.of(t.getCompletedLength()).isShorterThan(TrainingLength.of(t.getTargetLength()))
            || closing.contains(t.getTrialId())));
  }

  boolean allEnded() {
    return trials.values().stream().allMatch(t -> TrialStates.isTerminal(t.getState()));
  }

  OptionalDouble bestMetric() {
    return bestMetric;
  }

  long bestTrialId() {
    return bestTrialId;
  }

  /** The best validated checkpoint of all trials; the first one wins a tie. */
  Optional<CheckpointRef> bestCheckpoint() {
    CheckpointRef best = null;
    for (TrialState.Builder t : trials.values()) {
      for (CheckpointRef c : t.getCheckpointsList()) {
        double m = c.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN);
        if (best == null || better(m, best.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN))) {
          best = c;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /** Every trial as it stands, by id. */
  List<TrialState> snapshot() {
    return trials.values().stream().map(TrialState.Builder::build).toList();
  }

  private void updateBest() {
    for (TrialState.Builder t : trials.values()) {
      if (t.hasBestMetric() && (bestMetric.isEmpty() || better(t.getBestMetric(), bestMetric.getAsDouble()))) {
        bestMetric = OptionalDouble.of(t.getBestMetric());
        bestTrialId = t.getTrialId();
      }
    }
  }

  private boolean better(double a, double b) {
    return smallerIsBetter ? a < b : a > b;
  }
}
