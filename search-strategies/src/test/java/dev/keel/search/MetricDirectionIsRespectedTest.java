package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.search.core.Prng;
import dev.keel.search.sim.LearningCurveOracle;
import dev.keel.search.sim.SimulationResult;
import dev.keel.search.sim.Simulator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Maximising a metric is minimising its negation: with {@code smaller_is_better: false} and the
 * negated oracle a searcher makes exactly the same decisions. Flipping only the direction changes
 * them.
 */
class MetricDirectionIsRespectedTest {

  /** The synthetic oracle's loss, negated (an "accuracy" to maximise). */
  static final class NegatedOracle implements LearningCurveOracle {
    @Override
    public double metric(SortedMap<String, Value> hparams, long units, Prng noise) {
      return -Scenarios.ORACLE.metric(hparams, units, noise);
    }

    @Override
    public double secondsPerUnit(SortedMap<String, Value> hparams) {
      return Scenarios.ORACLE.secondsPerUnit(hparams);
    }

    @Override
    public boolean smallerIsBetter() {
      return false;
    }

    @Override
    public Map<String, Hyperparameter> hyperparameters() {
      return Scenarios.ORACLE.hyperparameters();
    }
  }

  static List<Scenarios.Scenario> scenarios() {
    return Scenarios.all(7).stream()
        .filter(
            s ->
                !s.name().equals("single")
                    && !s.name().equals("grid")
                    && !s.name().equals("random"))
        .toList();
  }

  private static ExperimentConfig maximising(ExperimentConfig c) {
    return c.toBuilder()
        .setSearcher(c.getSearcher().toBuilder().setSmallerIsBetter(false).setMetric("accuracy"))
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void maximisingTheNegatedMetricMakesTheSameDecisions(Scenarios.Scenario s) {
    SimulationResult minimised =
        Simulator.of(Scenarios.ORACLE, 4).recordingTranscript().run(s.searcher(), 3);
    Searcher max = Searchers.create(maximising(s.config()), s.options());
    SimulationResult maximised =
        Simulator.of(new NegatedOracle(), 4).recordingTranscript().run(max, 3);
    assertEquals(
        new Transcript(minimised.transcript()).operations(),
        new Transcript(maximised.transcript()).operations());
    assertEquals(minimised.bestMetric(), -maximised.bestMetric());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void flippingOnlyTheDirectionChangesTheDecisions(Scenarios.Scenario s) {
    SimulationResult minimised =
        Simulator.of(Scenarios.ORACLE, 4).recordingTranscript().run(s.searcher(), 3);
    Searcher wrongWay = Searchers.create(maximising(s.config()), s.options());
    SimulationResult r = Simulator.of(Scenarios.ORACLE, 4).recordingTranscript().run(wrongWay, 3);
    assertNotEquals(
        new Transcript(minimised.transcript()).operations(),
        new Transcript(r.transcript()).operations());
  }
}
