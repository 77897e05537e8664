package dev.keel.search.sim;

import java.util.List;

/**
 * What a simulated search did. Times are simulated seconds; compute is in the experiment's length
 * unit.
 *
 * @param trialsCreated {@code Create} operations
 * @param invalidHpTrials trials that exited with {@code INVALID_HP}
 * @param unitsTrained all training done (the compute spent)
 * @param makespan time of {@code Shutdown}
 * @param busyTime worker-seconds spent training
 * @param searchPhaseTime time of the last {@code Create}: until then the searcher still had new
 *     trials to offer
 * @param busyInSearchPhase worker-seconds spent training before {@code searchPhaseTime}
 * @param bestMetric best validation metric reported (direction-aware)
 * @param timeToTarget first time a validation reached the target; NaN if never
 * @param unitsToTarget training done (finished and in-progress) by {@code timeToTarget}; NaN if
 *     never
 * @param maxActive most trials training at once
 * @param transcript every event and answer, if recorded
 */
public record SimulationResult(
    int workers,
    int trialsCreated,
    int invalidHpTrials,
    long unitsTrained,
    double makespan,
    double busyTime,
    double searchPhaseTime,
    double busyInSearchPhase,
    double bestMetric,
    long bestTrial,
    double timeToTarget,
    double unitsToTarget,
    int maxActive,
    List<SimEvent.Exchange> transcript) {

  /**
   * Busy worker-time over {@code workers * makespan}: includes the final drain, when fewer trials
   * are left than workers.
   */
  public double utilization() {
    return makespan <= 0 ? 0 : busyTime / (workers * makespan);
  }

  /**
   * Utilization until the last trial was created: idle time here is the searcher's (barriers), not
   * the drain's.
   */
  public double searchPhaseUtilization() {
    return searchPhaseTime <= 0 ? 0 : busyInSearchPhase / (workers * searchPhaseTime);
  }

  public boolean reachedTarget() {
    return !Double.isNaN(timeToTarget);
  }
}
