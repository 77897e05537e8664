package dev.keel.search.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.Searchers;
import dev.keel.search.core.Prng;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Recorded curves: interpolation, nearest recorded configuration, and a search run on them. */
class RecordedCurvesOracleTest {

  private static String sample() throws IOException {
    try (InputStream in =
        RecordedCurvesOracleTest.class.getResourceAsStream("/curves/example-curves.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static SortedMap<String, Value> hp(double lr, String opt) {
    SortedMap<String, Value> m = new TreeMap<>();
    m.put("lr", Value.newBuilder().setNumberValue(lr).build());
    m.put("optimizer", Value.newBuilder().setStringValue(opt).build());
    return m;
  }

  @Test
  void metricsAreInterpolatedBetweenRecordedLengths() throws IOException {
    RecordedCurvesOracle o = RecordedCurvesOracle.parse(sample());
    Prng p = new Prng(1);
    assertEquals(2.0, o.metric(hp(0.001, "adam"), 50, p), 1e-12); // before the first point
    assertEquals(1.5, o.metric(hp(0.001, "adam"), 150, p), 1e-12); // halfway between 100 and 200
    assertEquals(0.6, o.metric(hp(0.001, "adam"), 9999, p), 1e-12); // after the last point
  }

  @Test
  void anUnrecordedConfigurationGetsTheNearestCurve() throws IOException {
    RecordedCurvesOracle o = RecordedCurvesOracle.parse(sample());
    Prng p = new Prng(1);
    assertEquals(o.metric(hp(0.001, "adam"), 400, p), o.metric(hp(0.0012, "adam"), 400, p));
    assertEquals(o.metric(hp(0.01, "sgd"), 400, p), o.metric(hp(0.008, "sgd"), 400, p));
    assertEquals(0.05, o.secondsPerUnit(hp(0.01, "sgd")));
  }

  @Test
  void aSearchRunsAgainstRecordedCurves() throws IOException {
    RecordedCurvesOracle o = RecordedCurvesOracle.parse(sample());
    ExperimentConfig c =
        ExperimentConfig.newBuilder()
            .putAllHyperparameters(o.hyperparameters())
            .setSearcher(
                SearcherConfig.newBuilder()
                    .setName("adaptive_asha")
                    .setMetric("validation_loss")
                    .setSmallerIsBetter(true)
                    .setMaxTrials(40)
                    .setMaxConcurrentTrials(4)
                    .setMaxLength(Length.newBuilder().setBatches(400))
                    .setDivisor(2))
            .build();
    SimulationResult r = Simulator.of(o, 4).withTarget(0.5).run(Searchers.create(c), 1);
    assertEquals(40, r.trialsCreated());
    // the example's curves cross: lr 0.001 (best at 400) starts worst, so ASHA may prefer lr 0.01
    // (0.8)
    assertTrue(r.bestMetric() <= 0.8, "best " + r.bestMetric());
  }

  @Test
  void malformedCurvesAreRejectedNamingTheCurve() {
    String bad =
        """
        {"hyperparameters": {"lr": {"type": "double", "minval": 0, "maxval": 1}},
         "curves": [{"hparams": {"lr": 0.1}, "points": [[200, 1.0], [100, 0.5]]}]}
        """;
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RecordedCurvesOracle.parse(bad));
    assertTrue(e.getMessage().startsWith("curves[0].points"), e.getMessage());
  }
}
