package dev.keel.service.experiment;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.gpu.train.metric.ValidationMetrics;
import java.util.List;

/**
 * {@code searcher.metric} names a metric the trainer reports ({@link ValidationMetrics}). Checked
 * at submission: a misspelt name otherwise fails the experiment only after its first trial has
 * trained. The config validator cannot do it, since it is shared with workflow code that does not
 * know the trainer.
 */
public final class MetricCheck {
  private MetricCheck() {}

  /**
   * Throws when {@link #problems} finds one.
   *
   * @param what names the config in the error, e.g. the file it was read from
   */
  public static void require(ExperimentConfig config, String what) {
    List<ConfigProblem> problems = problems(config, "");
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(what, problems);
    }
  }

  /**
   * @param prefix where the config sits in the request: {@code ""} or {@code "experiment."}
   */
  public static List<ConfigProblem> problems(ExperimentConfig config, String prefix) {
    String metric = config.getSearcher().getMetric();
    if (metric.isEmpty() || ValidationMetrics.of(metric).isPresent()) {
      return List.of(); // an empty one is the validator's to name
    }
    return List.of(
        new ConfigProblem(
            prefix + "searcher.metric",
            "'"
                + metric
                + "' is not a metric the trainer reports (expected "
                + String.join("|", ValidationMetrics.names())
                + ")"));
  }
}
