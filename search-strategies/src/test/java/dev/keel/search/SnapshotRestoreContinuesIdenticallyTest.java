package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.search.sim.FaultModel;
import dev.keel.search.sim.SimulationResult;
import dev.keel.search.sim.Simulator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code snapshot()} then {@code Searchers.restore()} mid-search (as at a continue-as-new) gives a
 * searcher that answers every later event exactly as the original would have.
 */
class SnapshotRestoreContinuesIdenticallyTest {
  private static final FaultModel FAULTS = new FaultModel(0.05, 0.05);

  static List<Scenarios.Scenario> scenarios() {
    return Scenarios.all(21);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void restoringAtAnyPointContinuesIdentically(Scenarios.Scenario s) {
    SimulationResult uninterrupted =
        Simulator.of(Scenarios.ORACLE, 4)
            .withFaults(FAULTS)
            .recordingTranscript()
            .run(s.searcher(), 9);
    int exchanges = uninterrupted.transcript().size();
    for (int at : new int[] {1, 2, exchanges / 3, exchanges / 2, exchanges - 1}) {
      SimulationResult restored =
          Simulator.of(Scenarios.ORACLE, 4)
              .withFaults(FAULTS)
              .recordingTranscript()
              .restoringFromSnapshotAt(at)
              .run(s.searcher(), 9);
      assertEquals(
          uninterrupted.transcript(), restored.transcript(), "restored before exchange " + at);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void aRestoredSearcherSnapshotsToTheSameDocument(Scenarios.Scenario s) {
    Searcher[] holder = new Searcher[1];
    Simulator.of(Scenarios.ORACLE, 4)
        .swappingSearcherAt(
            40,
            x -> {
              holder[0] = x;
              return x;
            })
        .run(s.searcher(), 1);
    if (holder[0] == null) {
      return; // finished in fewer exchanges
    }
    String snapshot = holder[0].snapshot();
    Searcher restored = Searchers.restore(snapshot);
    assertEquals(snapshot, restored.snapshot());
    assertEquals(holder[0].progress(), restored.progress());
  }

  @Test
  void aSnapshotIsAJsonDocumentCarryingTheConfig() {
    Searcher s = Scenarios.all(1).get(4).searcher();
    s.initialOperations();
    String snapshot = s.snapshot();
    assertTrue(
        snapshot.startsWith("{")
            && snapshot.contains("\"format\":\"keel.searcher.v1\"")
            && snapshot.contains("adaptive_asha"));
  }

  @Test
  void garbageIsNotASnapshot() {
    assertThrows(IllegalArgumentException.class, () -> Searchers.restore("{\"format\":\"other\"}"));
    assertThrows(IllegalArgumentException.class, () -> Searchers.restore("not json"));
  }
}
