package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.search.sim.FaultModel;
import dev.keel.search.sim.SimulationResult;
import dev.keel.search.sim.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Properties every searcher keeps, checked on simulated runs of every searcher over several seeds,
 * worker counts and failure rates: nothing trains past max_length, at most max_trials trials count,
 * at most max_concurrent_trials train at once, every created trial ends, and Shutdown comes once,
 * last.
 */
class SearcherPropertiesTest {

  static Stream<Arguments> runs() {
    List<Arguments> out = new ArrayList<>();
    FaultModel[] faults = {FaultModel.NONE, new FaultModel(0.05, 0.1)};
    for (long seed = 1; seed <= 3; seed++) {
      for (Scenarios.Scenario s : Scenarios.all(seed)) {
        for (FaultModel f : faults) {
          out.add(Arguments.of(s, (int) (seed * 3), f));
        }
      }
    }
    return out.stream();
  }

  private static Transcript simulate(Scenarios.Scenario s, int workers, FaultModel faults) {
    SimulationResult r =
        Simulator.of(Scenarios.ORACLE, workers)
            .withFaults(faults)
            .recordingTranscript()
            .run(s.searcher(), workers);
    return new Transcript(r.transcript());
  }

  @ParameterizedTest(name = "{0}, {1} workers, {2}")
  @MethodSource("runs")
  void noTrialIsAskedToTrainPastMaxLength(Scenarios.Scenario s, int workers, FaultModel faults) {
    assertTrue(simulate(s, workers, faults).longestRequest() <= Scenarios.MAX_LENGTH);
  }

  @ParameterizedTest(name = "{0}, {1} workers, {2}")
  @MethodSource("runs")
  void noMoreThanMaxTrialsTrialsAreCreated(Scenarios.Scenario s, int workers, FaultModel faults) {
    Transcript t = simulate(s, workers, faults);
    int maxTrials =
        s.config().getSearcher().hasMaxTrials() ? s.config().getSearcher().getMaxTrials() : 1;
    // trials rejected for invalid hyperparameters are replaced and do not count
    assertTrue(
        t.created().size() - t.invalidHp() <= maxTrials,
        t.created().size() + " created, " + t.invalidHp() + " invalid");
    if (faults.invalidHpProbability() == 0) {
      assertTrue(t.created().size() <= maxTrials);
    }
  }

  @ParameterizedTest(name = "{0}, {1} workers, {2}")
  @MethodSource("runs")
  void atMostMaxConcurrentTrialsTrainAtOnce(Scenarios.Scenario s, int workers, FaultModel faults) {
    int limit = s.name().equals("single") ? 1 : Scenarios.MAX_CONCURRENT;
    assertTrue(simulate(s, workers, faults).maxOutstanding() <= limit);
  }

  @ParameterizedTest(name = "{0}, {1} workers, {2}")
  @MethodSource("runs")
  void everyCreatedTrialIsEventuallyClosedAndShutdownComesLast(
      Scenarios.Scenario s, int workers, FaultModel faults) {
    Transcript t = simulate(s, workers, faults);
    assertEquals(t.created(), t.ended());
    assertTrue(t.endsWithShutdown());
  }
}
