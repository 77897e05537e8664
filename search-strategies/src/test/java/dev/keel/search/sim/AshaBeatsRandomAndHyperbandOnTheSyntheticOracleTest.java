package dev.keel.search.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's figures, at its defaults (2000 trials, 16 workers, 20 seeds, target = best 0.1%
 * of configurations): ASHA reaches the target with at most 1/5 of random search's compute, and
 * keeps the workers at least 95% busy while it has trials to start, where Hyperband's synchronous
 * rungs leave them idle. Simulated time only: no wall-clock assertions.
 */
class AshaBeatsRandomAndHyperbandOnTheSyntheticOracleTest {
  private static final List<SearcherComparison.Row> ROWS =
      SearcherComparison.run(
          new SyntheticOracle(0.02),
          SearcherComparison.entries().stream()
              .filter(e -> List.of("random", "adaptive_asha", "hyperband").contains(e.label()))
              .toList(),
          20,
          2000,
          16,
          2560,
          0.14);

  private static SearcherComparison.Row row(String label) {
    return ROWS.stream().filter(r -> r.label().equals(label)).findFirst().orElseThrow();
  }

  @Test
  void ashaNeedsAtMostAFifthOfRandomSearchsComputeToReachTheTarget() {
    double ratio = row("adaptive_asha").unitsToTarget() / row("random").unitsToTarget();
    assertTrue(ratio <= 0.2, "ASHA/random compute to target = " + ratio);
  }

  @Test
  void ashaKeepsWorkersBusyWhileHyperbandWaitsAtBarriers() {
    assertTrue(
        row("adaptive_asha").searchPhaseUtilization() >= 0.95,
        "ASHA " + row("adaptive_asha").searchPhaseUtilization());
    assertTrue(
        row("hyperband").searchPhaseUtilization() < 0.9,
        "Hyperband " + row("hyperband").searchPhaseUtilization());
  }
}
