package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code inference.drift} is checked at submission: each mistake is one line under its field path.
 */
class BadDriftBlockIsRefusedNamingEachFieldTest {
  private static final ProtoConfigLoader<PipelineRequest> LOADER =
      new ProtoConfigLoader<>(
          "pipeline request",
          PipelineRequest::newBuilder,
          r -> PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));

  private static String request(String drift) {
    return """
        {"source": {"format": "fashion_mnist"}, "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}},
         "inference": {"drift": %s}}
        """
        .formatted(drift);
  }

  private static List<String> problems(String drift) {
    return assertThrows(ConfigValidationException.class, () -> LOADER.fromJson(request(drift)))
        .problems()
        .stream()
        .map(ConfigProblem::toString)
        .toList();
  }

  @Test
  void aValidBlockLoadsWithItsTrigger() {
    PipelineRequest r =
        LOADER.fromJson(
            request(
                "{\"threshold\": 0.25, \"measure\": \"psi\", \"on_drift\": {\"trigger_schedule\": \"nightly-retrain\"}}"));
    assertEquals(0.25, r.getInference().getDrift().getThreshold());
    assertEquals("nightly-retrain", r.getInference().getDrift().getOnDrift().getTriggerSchedule());
  }

  @Test
  void unknownMeasureZeroThresholdAndTriggerWithoutScheduleAreEachNamed() {
    assertEquals(
        List.of(
            "inference.drift.threshold: must be a number > 0 (the score past which a run is marked drifted), got 0.0",
            "inference.drift.measure: unknown measure 'kl' (expected mean_shift|total_variation|psi)",
            "inference.drift.on_drift.trigger_schedule: required (the id of the Temporal Schedule to trigger when the run "
                + "drifts, made with keel schedule create)"),
        problems("{\"measure\": \"kl\", \"on_drift\": {}}"));
  }

  @Test
  void negativeThresholdAndBadReferenceAreNamed() {
    assertEquals(
        List.of(
            "inference.drift.threshold: must be a number > 0 (the score past which a run is marked drifted), got -1.0",
            "inference.drift.reference.uri: required when reference is set (the training table)",
            "inference.drift.reference.version: must be >= 0, got -2",
            "inference.drift.top_features: must be 0..100, got 500"),
        problems("{\"threshold\": -1, \"reference\": {\"version\": -2}, \"top_features\": 500}"));
  }

  @Test
  void defaultsAreTheMeanShiftOverTheTrainSplitWithFiveFeatures() {
    DriftConfig d =
        DriftConfigRules.withDefaults(DriftConfig.newBuilder().setThreshold(0.3).build());
    assertEquals("mean_shift", d.getMeasure());
    assertEquals("train", d.getReferenceSplit());
    assertEquals(5, d.getTopFeatures());
  }
}
