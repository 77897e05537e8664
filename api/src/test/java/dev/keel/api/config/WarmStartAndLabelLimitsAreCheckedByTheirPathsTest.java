package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The data-versioning fields of a pipeline request: source.label_limits and warm_start.model. */
class WarmStartAndLabelLimitsAreCheckedByTheirPathsTest {
  private static final ProtoConfigLoader<PipelineRequest> LOADER =
      new ProtoConfigLoader<>(
          "pipeline request",
          PipelineRequest::newBuilder,
          r -> PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));
  private static final String EXPERIMENT =
      """
      "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}""";

  @Test
  void aChampionOrAVersionWithLabelLimitsIsAccepted() {
    PipelineRequest r =
        LOADER.fromJson(
            """
        {"source": {"format": "fashion_mnist", "label_limits": {"sneaker": 50, "9": 0}}, "target_table": "t",
         "warm_start": {"model": {"name": "story", "stage": "champion"}}, %s}
        """
                .formatted(EXPERIMENT));
    assertEquals(50, r.getSource().getLabelLimitsOrThrow("sneaker"));
    assertEquals(ModelStage.champion, r.getWarmStart().getModel().getStage());
    assertEquals(
        List.of(),
        problems(
            """
        {"source": {"format": "fashion_mnist"}, "target_table": "t", "warm_start": {"model": {"name": "story", "version": 3}}, %s}
        """
                .formatted(EXPERIMENT)));
  }

  @Test
  void eachBadFieldIsNamed() {
    assertEquals(
        List.of("source.label_limits.sneaker: must be >= 0, got -1"),
        problems(
            """
        {"source": {"format": "fashion_mnist", "label_limits": {"sneaker": -1}}, "target_table": "t", %s}
        """
                .formatted(EXPERIMENT)));
    assertEquals(
        List.of(
            "warm_start.model.stage: unknown value 'prod' (expected candidate|champion|archived)"),
        problems(
            """
        {"source": {"format": "fashion_mnist"}, "target_table": "t", "warm_start": {"model": {"name": "story", "stage": "prod"}}, %s}
        """
                .formatted(EXPERIMENT)));
    assertEquals(
        List.of("warm_start.model: required: version (1 or more) or stage: champion"),
        problems(
            """
        {"source": {"format": "fashion_mnist"}, "target_table": "t", "warm_start": {"model": {"name": "story"}}, %s}
        """
                .formatted(EXPERIMENT)));
    assertEquals(
        List.of("warm_start.model: set version or stage, not both"),
        problems(
            """
        {"source": {"format": "fashion_mnist"}, "target_table": "t",
         "warm_start": {"model": {"name": "story", "version": 1, "stage": "champion"}}, %s}
        """
                .formatted(EXPERIMENT)));
    assertEquals(
        List.of(
            "warm_start.model.name: must match "
                + PipelineRequestValidator.MODEL_NAME
                + ", got ''"),
        problems(
            """
        {"source": {"format": "fashion_mnist"}, "target_table": "t", "warm_start": {"model": {"stage": "champion"}}, %s}
        """
                .formatted(EXPERIMENT)));
  }

  @Test
  void aWarmStartNeedsASearchToStart() {
    assertEquals(
        List.of(
            "warm_start: only a search starts from it: remove warm_start, reuse.model or reuse.experiment_id"),
        problems(
            """
            {"reuse": {"table": {"table": "t"}, "model": {"name": "m", "version": 1}},
             "warm_start": {"model": {"name": "story", "stage": "champion"}}}
            """));
  }

  private static List<String> problems(String json) {
    try {
      LOADER.fromJson(json);
      return List.of();
    } catch (ConfigValidationException e) {
      return e.problems().stream().map(ConfigProblem::toString).toList();
    }
  }

  @Test
  void aMisspelledFieldIsRefused() {
    assertThrows(
        ConfigValidationException.class,
        () ->
            LOADER.fromJson(
                """
        {"source": {"format": "fashion_mnist"}, "target_table": "t", "warm_start": {"modle": {"name": "story"}}, %s}
        """
                    .formatted(EXPERIMENT)));
  }
}
