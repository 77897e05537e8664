package dev.keel.search.pbt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.Searchers;
import dev.keel.search.ValidateAfter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Exploit closes the worst and forks the best from its checkpoint; explore keeps values in range.
 */
class PbtForksFromBetterTrialsTest {

  private static Searcher pbt() {
    ExperimentConfig c =
        ExperimentConfig.newBuilder()
            .putHyperparameters(
                "lr",
                Hyperparameter.newBuilder().setType("double").setMinval(0.1).setMaxval(1).build())
            .setSearcher(
                SearcherConfig.newBuilder()
                    .setName("pbt")
                    .setMetric("loss")
                    .setSmallerIsBetter(true)
                    .setMaxTrials(6)
                    .setPopulationSize(4)
                    .setTruncateFraction(0.25)
                    .setSeed(3)
                    .setMaxLength(Length.newBuilder().setBatches(300)))
            .build();
    return Searchers.create(c);
  }

  @Test
  void roundsSplitMaxLengthAndTheWorstIsReplacedByAForkOfTheBest() {
    Searcher s = pbt();
    List<Operation> first = s.initialOperations();
    assertEquals(8, first.size()); // 4 x (Create, ValidateAfter to 100)
    assertTrue(first.contains(new ValidateAfter(1, new TrainingLength(100, LengthUnit.BATCHES))));
    for (long t = 1; t <= 4; t++) {
      s.trialCreated(t);
    }
    s.validationCompleted(1, 0.5, new TrainingLength(100, LengthUnit.BATCHES));
    s.validationCompleted(2, 0.1, new TrainingLength(100, LengthUnit.BATCHES)); // best
    s.validationCompleted(3, 0.3, new TrainingLength(100, LengthUnit.BATCHES));
    List<Operation> next =
        s.validationCompleted(4, 0.9, new TrainingLength(100, LengthUnit.BATCHES)); // worst
    assertTrue(next.contains(new Close(4)));
    Create child =
        (Create) next.stream().filter(o -> o instanceof Create).findFirst().orElseThrow();
    assertEquals(5, child.trialId());
    assertEquals(2, child.warmStart().orElseThrow().parentTrialId());
    assertEquals(
        new TrainingLength(100, LengthUnit.BATCHES),
        child.warmStart().orElseThrow().parentLength());
    double lr = child.hparams().get("lr").getNumberValue();
    assertTrue(lr >= 0.1 && lr <= 1);
    List<Long> continuing = new ArrayList<>();
    next.forEach(
        o -> {
          if (o instanceof ValidateAfter v) {
            assertEquals(200, v.length().units());
            continuing.add(v.trialId());
          }
        });
    assertEquals(List.of(5L, 2L, 3L, 1L), continuing);
    // the child is created before its parent trains on, so the parent's checkpoint at 100 is still
    // its latest
    assertTrue(
        next.indexOf(child)
            < next.indexOf(new ValidateAfter(2, new TrainingLength(200, LengthUnit.BATCHES))));
  }
}
