package dev.keel.api.checkpoint;

import dev.keel.api.v1.CheckpointRef;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The one meaning of "best" among validated checkpoints, for everything that picks one: the
 * experiment's progress, state and result, {@code describe}, checkpoint GC's {@code save_*_best}, a
 * pipeline's {@code BestTrial} and a reused experiment read back from the catalog. The better
 * searcher metric wins; a tie goes to the checkpoint trained longer (its length in the searcher's
 * unit, then its batches), then to the lower trial number, then to the smaller uuid, so a tie never
 * depends on the order reports came in. A checkpoint without a {@link
 * CheckpointMetrics#SEARCHER_METRIC} was never validated and is not ranked; a NaN metric ranks
 * last.
 */
public final class BestCheckpoints {
  private BestCheckpoints() {}

  /** Validated checkpoints, best first. */
  public static Comparator<CheckpointRef> bestFirst(boolean smallerIsBetter) {
    Comparator<CheckpointRef> byMetric =
        Comparator.comparingDouble(c -> sortable(metric(c), smallerIsBetter));
    return byMetric
        .thenComparing(
            Comparator.comparingDouble(
                    (CheckpointRef c) -> c.getMetricsOrDefault(CheckpointMetrics.LENGTH, 0))
                .reversed())
        .thenComparing(Comparator.comparingLong(CheckpointRef::getBatches).reversed())
        .thenComparingLong(BestCheckpoints::trialNumber)
        .thenComparing(CheckpointRef::getTrialId)
        .thenComparing(CheckpointRef::getUuid);
  }

  /** The best of the validated checkpoints among {@code checkpoints}. */
  public static Optional<CheckpointRef> best(
      Collection<CheckpointRef> checkpoints, boolean smallerIsBetter) {
    return checkpoints.stream().filter(BestCheckpoints::validated).min(bestFirst(smallerIsBetter));
  }

  /** The validated checkpoints among {@code checkpoints}, best first. */
  public static List<CheckpointRef> ranked(
      Collection<CheckpointRef> checkpoints, boolean smallerIsBetter) {
    return checkpoints.stream()
        .filter(BestCheckpoints::validated)
        .sorted(bestFirst(smallerIsBetter))
        .toList();
  }

  public static boolean validated(CheckpointRef c) {
    return c.containsMetrics(CheckpointMetrics.SEARCHER_METRIC);
  }

  /** The number of a trial id {@code trial-<n>}, else {@link Long#MAX_VALUE}. */
  public static long trialNumber(CheckpointRef c) {
    String id = c.getTrialId();
    if (id.startsWith("trial-")) {
      try {
        return Long.parseLong(id.substring("trial-".length()));
      } catch (NumberFormatException e) {
        return Long.MAX_VALUE;
      }
    }
    return Long.MAX_VALUE;
  }

  private static double metric(CheckpointRef c) {
    return c.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN);
  }

  /** Smaller sorts first; NaN last either way. */
  private static double sortable(double metric, boolean smallerIsBetter) {
    if (Double.isNaN(metric)) {
      return Double.POSITIVE_INFINITY;
    }
    return smallerIsBetter ? metric : -metric;
  }
}
