package dev.keel.service.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.gpu.train.metric.ValidationMetrics;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.pipeline.PipelineLauncher;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A {@code searcher.metric} the trainer does not report is refused when the experiment or pipeline
 * is submitted (or validated), naming the field and the metrics there are, instead of failing the
 * first trial after it trained.
 */
class AMisspeltSearcherMetricIsRefusedAtSubmissionTest {
  private static final String PROBLEM =
      "'val_acc' is not a metric the trainer reports"
          + " (expected accuracy|validation_accuracy|validation_loss|validation_macro_f1"
          + "|validation_mae|validation_r2|validation_rmse|validation_roc_auc|validation_roc_auc.<label>"
          + "|validation_top5_accuracy)";

  private static ExperimentConfig config(String metric) {
    return ExperimentConfig.newBuilder()
        .setSearcher(SearcherConfig.newBuilder().setName("single").setMetric(metric))
        .build();
  }

  @Test
  void everyReportedMetricIsTakenAndAnyOtherIsNamed() {
    for (String metric : ValidationMetrics.names()) {
      assertEquals(List.of(), MetricCheck.problems(config(metric), ""), metric);
    }
    assertEquals(
        List.of(new ConfigProblem("searcher.metric", PROBLEM)),
        MetricCheck.problems(config("val_acc"), ""));
  }

  @Test
  void anExperimentStartIsRefusedBeforeItReachesTemporal() {
    // no client: the refusal comes before anything would be started
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                ExperimentLauncher.start(
                    null, ExperimentRequest.newBuilder().setConfig(config("val_acc")).build()));
    assertEquals(List.of(new ConfigProblem("searcher.metric", PROBLEM)), e.problems());
  }

  @Test
  void aPipelineRequestNamesTheFieldUnderExperiment() {
    var request =
        ExperimentConfigLoaders.pipelineLoader()
            .fromYaml(
                """
                name: metric-check
                target_table: t
                source: {format: fashion_mnist}
                experiment:
                  searcher: {name: single, metric: val_acc, max_length: {batches: 10}}
                  hyperparameters: {}
                """);
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () -> PipelineLauncher.checkSource(request, "pipeline request"));
    assertEquals(List.of(new ConfigProblem("experiment.searcher.metric", PROBLEM)), e.problems());
  }
}
