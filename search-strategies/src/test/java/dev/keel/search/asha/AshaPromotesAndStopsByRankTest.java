package dev.keel.search.asha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.ExitReason;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.Searchers;
import dev.keel.search.Shutdown;
import dev.keel.search.ValidateAfter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * One bracket, divisor 2, rungs at 2 and 4 batches, one slot: the decisions can be followed by
 * hand.
 */
class AshaPromotesAndStopsByRankTest {

  private static Searcher asha(boolean stopOnce, boolean smallerIsBetter) {
    ExperimentConfig c =
        ExperimentConfig.newBuilder()
            .putHyperparameters(
                "x",
                Hyperparameter.newBuilder().setType("double").setMinval(0).setMaxval(1).build())
            .setSearcher(
                SearcherConfig.newBuilder()
                    .setName("adaptive_asha")
                    .setMetric("m")
                    .setSmallerIsBetter(smallerIsBetter)
                    .setMode(SearcherConfig.Mode.aggressive)
                    .setDivisor(2)
                    .setMaxRungs(2)
                    .setMaxTrials(4)
                    .setMaxConcurrentTrials(1)
                    .setStopOnce(stopOnce)
                    .setMaxLength(Length.newBuilder().setBatches(4)))
            .build();
    return Searchers.create(c);
  }

  private static TrainingLength len(long units) {
    return new TrainingLength(units, LengthUnit.BATCHES);
  }

  @Test
  void aTrialIsPromotedWhenItRanksInTheTopHalfOfItsRung() {
    Searcher s = asha(false, true);
    List<Operation> ops = s.initialOperations();
    assertEquals(List.of(ops.get(0), new ValidateAfter(1, len(2))), ops);
    s.trialCreated(1);
    // one result: floor(1/2) = 0 promotions, so the slot starts trial 2
    ops = s.validationCompleted(1, 0.5, len(2));
    assertTrue(ops.get(0) instanceof Create c && c.trialId() == 2);
    s.trialCreated(2);
    // two results, trial 2 is better: it continues to 4 batches in the slot
    assertEquals(List.of(new ValidateAfter(2, len(4))), s.validationCompleted(2, 0.3, len(2)));
    assertEquals(List.of(new Close(2)), s.validationCompleted(2, 0.2, len(4)).subList(0, 1));
  }

  @Test
  void largerIsBetterPromotesTheLargerMetric() {
    Searcher s = asha(false, false);
    s.initialOperations();
    s.trialCreated(1);
    s.validationCompleted(1, 0.5, len(2));
    s.trialCreated(2);
    // trial 2 is worse when larger is better: trial 1, paused in rung 0, is promoted instead
    assertEquals(List.of(new ValidateAfter(1, len(4))), s.validationCompleted(2, 0.3, len(2)));
  }

  @Test
  void unpromotedTrialsAreClosedOnceTheirRungCanNoLongerChange() {
    Searcher s = asha(false, true);
    s.initialOperations();
    double[] metrics = {0.5, 0.3, 0.7, 0.6};
    List<Operation> all = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      long trial = i + 1L;
      s.trialCreated(trial);
      List<Operation> ops = s.validationCompleted(trial, metrics[i], len(2));
      all.addAll(ops);
      for (Operation op : ops) {
        if (op instanceof ValidateAfter v && v.length().units() == 4) {
          all.addAll(s.validationCompleted(v.trialId(), 0.1, len(4)));
        }
      }
    }
    // four results in rung 0: the top two (trials 2 and 1) were promoted; 3 and 4 never can be, so
    // they close
    // as soon as the last result arrives, while trial 1 still trains at rung 1
    assertTrue(all.contains(new Close(3)) && all.contains(new Close(4)), all.toString());
    assertTrue(all.indexOf(new Close(4)) < all.indexOf(new Close(1)));
  }

  @Test
  void stopOnceStopsATrialOutsideTheTopFractionAtOnce() {
    Searcher s = asha(true, true);
    s.initialOperations();
    s.trialCreated(1);
    // the first result of a rung always continues
    assertEquals(List.of(new ValidateAfter(1, len(4))), s.validationCompleted(1, 0.5, len(2)));
    List<Operation> ops = s.validationCompleted(1, 0.4, len(4));
    assertEquals(new Close(1), ops.get(0));
    s.trialCreated(2);
    // 2 results, keep floor(2/2) = 1: 0.9 is not it, so trial 2 stops and trial 3 starts
    ops = s.validationCompleted(2, 0.9, len(2));
    assertEquals(new Close(2), ops.get(0));
    assertTrue(ops.get(1) instanceof Create c && c.trialId() == 3);
  }

  @Test
  void stopOnceLetsATrialTiedWithTheRungsCutContinue() {
    Searcher s = asha(true, true);
    s.initialOperations();
    s.trialCreated(1);
    s.validationCompleted(1, 0.5, len(2));
    s.validationCompleted(1, 0.5, len(4));
    s.trialCreated(2);
    // keep floor(2/2) = 1 of 0.5 and 0.5: the new result ranks first among equals (as in
    // Determined), so it continues
    assertEquals(List.of(new ValidateAfter(2, len(4))), s.validationCompleted(2, 0.5, len(2)));
  }

  @Test
  void stopOnceTrainsThirtyTrialsWithEqualMetricsAllToMaxLength() {
    ExperimentConfig c =
        ExperimentConfig.newBuilder()
            .putHyperparameters(
                "x",
                Hyperparameter.newBuilder().setType("double").setMinval(0).setMaxval(1).build())
            .setSearcher(
                SearcherConfig.newBuilder()
                    .setName("adaptive_asha")
                    .setMetric("m")
                    .setSmallerIsBetter(true)
                    .setMaxTrials(30)
                    .setMaxConcurrentTrials(4)
                    .setStopOnce(true)
                    .setMaxLength(Length.newBuilder().setBatches(256)))
            .build();
    Searcher s = Searchers.create(c);
    Map<Long, Long> reached = new TreeMap<>();
    List<Operation> ops = s.initialOperations();
    while (!s.isShutdown()) {
      List<Operation> next = new ArrayList<>();
      for (Operation op : ops) {
        if (op instanceof Create created) {
          next.addAll(s.trialCreated(created.trialId()));
        } else if (op instanceof ValidateAfter v) {
          reached.put(v.trialId(), v.length().units());
          next.addAll(s.validationCompleted(v.trialId(), 1.0, v.length()));
        } else if (op instanceof Close closed) {
          next.addAll(s.trialClosed(closed.trialId()));
        }
      }
      ops = next;
    }
    assertEquals(30, reached.size());
    assertTrue(reached.values().stream().allMatch(units -> units == 256), reached.toString());
  }

  @Test
  void aTrialWithInvalidHyperparametersIsReplacedAndLeavesNoRank() {
    Searcher s = asha(false, true);
    s.initialOperations();
    List<Operation> ops = s.trialExitedEarly(1, ExitReason.INVALID_HP);
    assertTrue(ops.get(0) instanceof Create c && c.trialId() == 2, ops.toString());
    s.trialCreated(2);
    // trial 2 is alone in rung 0: nothing to promote, trial 3 starts
    ops = s.validationCompleted(2, 0.5, len(2));
    assertTrue(ops.get(0) instanceof Create c && c.trialId() == 3);
    assertFalse(s.isShutdown());
  }

  @Test
  void anErroredTrialRanksLastInItsRung() {
    Searcher s = asha(false, true);
    s.initialOperations();
    s.trialCreated(1);
    s.trialExitedEarly(1, ExitReason.ERRORED);
    s.trialCreated(2);
    // trial 2's 0.9 still beats the errored trial 1: trial 2 is promoted
    assertEquals(List.of(new ValidateAfter(2, len(4))), s.validationCompleted(2, 0.9, len(2)));
  }

  @Test
  void shutdownComesAfterTheLastTrialCloses() {
    Searcher s = asha(true, true);
    List<Operation> ops = s.initialOperations();
    while (!s.isShutdown()) {
      List<Operation> next = new ArrayList<>();
      for (Operation op : ops) {
        if (op instanceof Create c) {
          next.addAll(s.trialCreated(c.trialId()));
        } else if (op instanceof ValidateAfter v) {
          next.addAll(s.validationCompleted(v.trialId(), v.trialId() * 0.1, v.length()));
        } else if (op instanceof Close c) {
          next.addAll(s.trialClosed(c.trialId()));
        }
      }
      if (next.contains(new Shutdown())) {
        assertEquals(new Shutdown(), next.get(next.size() - 1));
      }
      ops = next;
    }
    assertEquals(1.0, s.progress());
  }
}
