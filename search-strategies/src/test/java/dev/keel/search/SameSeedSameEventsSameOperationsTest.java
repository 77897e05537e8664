package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.keel.api.v1.Reproducibility;
import dev.keel.search.sim.FaultModel;
import dev.keel.search.sim.SimEvent;
import dev.keel.search.sim.SimulationResult;
import dev.keel.search.sim.Simulator;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A searcher is a pure function of its config (seed included) and the events it is given. */
class SameSeedSameEventsSameOperationsTest {

  static List<Scenarios.Scenario> scenarios() {
    return Scenarios.all(11);
  }

  private static SimulationResult run(Scenarios.Scenario s) {
    return Simulator.of(Scenarios.ORACLE, 4)
        .withFaults(new FaultModel(0.05, 0.05))
        .recordingTranscript()
        .run(s.searcher(), 5);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void replayingTheEventsIntoAFreshSearcherGivesTheSameOperations(Scenarios.Scenario s) {
    List<SimEvent.Exchange> original = run(s).transcript();
    Searcher fresh = s.searcher();
    for (SimEvent.Exchange e : original) {
      assertEquals(e.answer(), e.event().deliver(fresh), "answer to " + e.event());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void twoRunsWithTheSameSeedAreIdentical(Scenarios.Scenario s) {
    assertEquals(run(s).transcript(), run(s).transcript());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void anotherSeedSamplesOtherHyperparameters(Scenarios.Scenario s) {
    if (s.name().equals("single") || s.name().equals("grid")) {
      return; // nothing random to change
    }
    Scenarios.Scenario other =
        Scenarios.all(12).stream().filter(x -> x.name().equals(s.name())).findFirst().orElseThrow();
    Create first = (Create) s.searcher().initialOperations().get(0);
    Create otherFirst = (Create) other.searcher().initialOperations().get(0);
    assertNotEquals(first.hparams(), otherFirst.hparams());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void reproducibilitySeedIsUsedWhenTheSearcherHasNone(Scenarios.Scenario s) {
    var noSeed =
        s.config().toBuilder()
            .setSearcher(s.config().getSearcher().toBuilder().setSeed(0))
            .setReproducibility(Reproducibility.newBuilder().setSeed(11))
            .build();
    assertEquals(
        s.searcher().initialOperations(),
        Searchers.create(noSeed, s.options()).initialOperations());
  }
}
