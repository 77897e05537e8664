package dev.keel.workflows.experiment;

import static dev.keel.api.checkpoint.CheckpointMetrics.SEARCHER_METRIC;

import dev.keel.api.checkpoint.BestCheckpoints;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.CheckpointStorage;
import dev.keel.api.v1.TrialState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Determined's checkpoint GC policy: keep the union of the experiment's best {@code
 * save_experiment_best}, each trial's best {@code save_trial_best} and each trial's latest {@code
 * save_trial_latest}; everything else of this experiment may go. "Best" ranks the checkpoints taken
 * at validations by the searcher metric; "latest" ranks every checkpoint, periodic ones included,
 * by training progress. The experiment's best checkpoint (the one its result names and a pipeline
 * registers) is kept whatever the counts say. Pure and deterministic.
 *
 * <p>"Best" is {@link BestCheckpoints}' ranking, the one the experiment's result uses. Runs that
 * reached their GC before that rule existed rank as they did then (metric, then uuid), so they
 * replay.
 */
final class CheckpointGcPolicy {
  private final int experimentBest;
  private final int trialBest;
  private final int trialLatest;
  private final boolean smallerIsBetter;
  private final boolean oneBestRule;

  /**
   * @param storage with its defaults applied ({@code ConfigDefaults.withDefaults})
   */
  CheckpointGcPolicy(CheckpointStorage storage, boolean smallerIsBetter) {
    this(storage, smallerIsBetter, true);
  }

  /**
   * @param oneBestRule false only for runs that reached GC before {@link BestCheckpoints} existed
   */
  CheckpointGcPolicy(CheckpointStorage storage, boolean smallerIsBetter, boolean oneBestRule) {
    this.experimentBest = storage.getSaveExperimentBest();
    this.trialBest = storage.getSaveTrialBest();
    this.trialLatest = storage.getSaveTrialLatest();
    this.smallerIsBetter = smallerIsBetter;
    this.oneBestRule = oneBestRule;
  }

  /** Uuids to keep. */
  Set<String> keep(List<TrialState> trials) {
    Set<String> keep = new LinkedHashSet<>();
    List<CheckpointRef> validated = new ArrayList<>();
    for (TrialState t : trials) {
      validated.addAll(t.getCheckpointsList());
      best(t.getCheckpointsList()).stream().limit(trialBest).forEach(c -> keep.add(c.getUuid()));
      List<CheckpointRef> own = byProgress(t);
      for (int i = own.size() - 1, n = 0; i >= 0 && n < trialLatest; i--, n++) {
        keep.add(own.get(i).getUuid());
      }
    }
    List<CheckpointRef> ranked = best(validated);
    ranked.stream().limit(experimentBest).forEach(c -> keep.add(c.getUuid()));
    if (oneBestRule && !ranked.isEmpty()) {
      keep.add(ranked.get(0).getUuid());
    }
    return keep;
  }

  /** The experiment's checkpoints that {@link #keep} does not hold, oldest first per trial. */
  List<CheckpointRef> delete(List<TrialState> trials) {
    Set<String> keep = keep(trials);
    Set<String> seen = new LinkedHashSet<>();
    List<CheckpointRef> delete = new ArrayList<>();
    for (TrialState t : trials) {
      for (CheckpointRef c : byProgress(t)) {
        if (!keep.contains(c.getUuid()) && seen.add(c.getUuid())) {
          delete.add(c);
        }
      }
    }
    return delete;
  }

  /**
   * Validated and periodic checkpoints in the order they were taken: by batches, a validation's
   * checkpoint after a periodic one of the same batch (it is the same state, plus metrics).
   */
  private static List<CheckpointRef> byProgress(TrialState t) {
    List<CheckpointRef> all = new ArrayList<>(t.getPeriodicCheckpointsList());
    all.addAll(t.getCheckpointsList());
    // stable sort: periodic before validated at equal batches, each list keeping its own order
    all.sort(Comparator.comparingLong(CheckpointRef::getBatches));
    return all;
  }

  private List<CheckpointRef> best(List<CheckpointRef> checkpoints) {
    if (oneBestRule) {
      return BestCheckpoints.ranked(checkpoints, smallerIsBetter);
    }
    Comparator<CheckpointRef> byMetric =
        Comparator.comparingDouble(c -> c.getMetricsOrDefault(SEARCHER_METRIC, Double.NaN));
    if (!smallerIsBetter) {
      byMetric = byMetric.reversed();
    }
    return checkpoints.stream()
        .filter(c -> c.containsMetrics(SEARCHER_METRIC))
        .sorted(byMetric.thenComparing(CheckpointRef::getUuid))
        .toList();
  }
}
