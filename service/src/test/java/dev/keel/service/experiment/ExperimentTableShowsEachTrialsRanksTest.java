package dev.keel.service.experiment;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrialState;
import org.junit.jupiter.api.Test;

class ExperimentTableShowsEachTrialsRanksTest {
  private static TrialState.Builder trial(long id) {
    return TrialState.newBuilder()
        .setTrialId(id)
        .setState(TrialState.State.ACTIVE)
        .setTargetLength(Length.newBuilder().setBatches(100))
        .setCompletedLength(Length.newBuilder().setBatches(50));
  }

  @Test
  void aGangTrialListsItsRanksAndASingleSlotTrialDoesNot() {
    String table =
        ExperimentTable.render(
            ExperimentState.newBuilder()
                .setExperimentId("exp")
                .addTrials(
                    trial(1)
                        .setSlots(2)
                        .addRanks(
                            RankInfo.newBuilder()
                                .setRank(0)
                                .setWorkerIdentity("11@a")
                                .setDevice("cpu"))
                        .addRanks(
                            RankInfo.newBuilder()
                                .setRank(1)
                                .setWorkerIdentity("22@b")
                                .setDevice("cpu")))
                .addTrials(trial(2).setSlots(4))
                .addTrials(
                    trial(3)
                        .setSlots(1)
                        .addRanks(RankInfo.newBuilder().setWorkerIdentity("33@c").setDevice("cpu")))
                .build());
    assertTrue(table.contains("slots 2: rank 0 11@a (cpu), rank 1 22@b (cpu)"), table);
    assertTrue(table.contains("slots 4: no rank has trained yet"), table);
    assertFalse(table.contains("33@c"), table);
  }
}
