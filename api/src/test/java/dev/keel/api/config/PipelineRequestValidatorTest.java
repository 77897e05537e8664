package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pipeline's own rules; searcher rules are stubbed (search-strategies tests the real ones). */
class PipelineRequestValidatorTest {
  private static final ProtoConfigLoader<PipelineRequest> LOADER = new ProtoConfigLoader<>("pipeline request",
      PipelineRequest::newBuilder, r -> PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));

  @Test
  void acceptsTheDemoRequestAndLetsTheExperimentUseTheTargetTable() {
    PipelineRequest r = LOADER.fromJson("""
        {"name": "demo", "source": {"format": "fashion_mnist", "uri": "/usr/share/datasets/fashion-mnist"},
         "target_table": "fashion_mnist",
         "experiment": {"searcher": {"name": "single", "metric": "validation_loss", "max_length": {"batches": 100}},
                        "hyperparameters": {"lr": 0.001}}}
        """);
    assertEquals("fashion_mnist", r.getTargetTable());
    assertEquals(0.001, r.getExperiment().getHyperparametersOrThrow("lr").getVal().getNumberValue());
  }

  @Test
  void missingSourceAndNestedExperimentProblemsAreAllReported() {
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> LOADER.fromJson("""
        {"target_table": "t", "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": -1}},
         "hyperparameters": {"lr": {"type": "logg"}}}}
        """));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(lines.contains("source: missing data source (set source.format, e.g. fashion_mnist, and source.uri; "
        + "or reuse.table to use a table that exists)"), lines::toString);
    assertTrue(lines.contains("experiment.searcher.max_length.batches: must be > 0, got -1"), lines::toString);
    assertTrue(lines.contains("experiment.hyperparameters.lr.type: unknown type 'logg' (expected const|int|double|log|categorical)"), lines::toString);
  }

  @Test
  void searcherProblemsAreReportedUnderTheExperiment() {
    SearcherRules rules = (c, wellFormed) -> List.of(new ConfigProblem("searcher.name", "stub"));
    PipelineRequest r = LOADER.fromJson("""
        {"source": {"format": "fashion_mnist"}, "target_table": "t",
         "experiment": {"searcher": {"name": "x", "metric": "m", "max_length": {"batches": 1}}}}
        """);
    assertEquals(List.of("experiment.searcher.name: stub"),
        PipelineRequestValidator.validate(r, rules).stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void unknownSourceFormatIsNamed() {
    ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> LOADER.fromJson("""
        {"source": {"format": "csv"}, "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}}
        """));
    assertEquals("source.format: unknown format 'csv' (expected fashion_mnist)", e.problems().get(0).toString());
  }
}
