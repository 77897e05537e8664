package dev.keel.gpu.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.keel.gpu.train.metric.Metric;
import dev.keel.gpu.train.metric.ValidationMetrics;
import dev.keel.tables.dataset.LabeledExamples;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every {@link ValidationMetrics} metric of a model on labelled examples (images or feature
 * vectors), gathered in one pass of batches of {@value #BATCH}.
 */
public record Evaluation(Map<String, Double> byMetric, int examples) {
  public static final int BATCH = 1000;

  public Evaluation {
    byMetric = Map.copyOf(byMetric);
  }

  public static Evaluation of(TrainableModel model, LabeledExamples data) {
    Map<Metric, Metric.Tally> tallies = new LinkedHashMap<>();
    ValidationMetrics.of(model.loss().task()).forEach(m -> tallies.put(m, m.start()));
    for (int from = 0; from < data.size(); from += BATCH) {
      int[] rows = Batches.range(from, Math.min(data.size(), from + BATCH));
      try (NDManager batch = model.manager().newSubManager()) {
        NDArray x = Batches.inputs(batch, data, rows);
        NDArray y = Batches.labels(batch, data, rows);
        NDArray outputs = model.logits(x);
        NDArray loss = model.loss().perExample(outputs, y);
        tallies.values().forEach(t -> t.add(outputs, y, loss));
      }
    }
    Map<String, Double> byMetric = new LinkedHashMap<>();
    tallies.forEach(
        (m, t) -> {
          byMetric.put(m.name(), t.value(data.size()));
          t.perLabel()
              .forEach(
                  (label, value) ->
                      byMetric.put(
                          ValidationMetrics.perLabelName(m, labelName(data, label)), value));
        });
    return new Evaluation(byMetric, data.size());
  }

  private static String labelName(LabeledExamples data, int label) {
    return label < data.classNames().size() ? data.classNames().get(label) : "label" + label;
  }

  /** NaN for a regression or multilabel model, which has no accuracy. */
  public double accuracy() {
    return byMetric.getOrDefault(ValidationMetrics.ACCURACY.name(), Double.NaN);
  }

  public double loss() {
    return byMetric.get(ValidationMetrics.LOSS.name());
  }

  /**
   * As checkpoint / result metrics: each metric under its name and its aliases, then the per-label
   * figures.
   */
  public Map<String, Double> metrics() {
    Map<String, Double> out = new LinkedHashMap<>();
    for (Metric m : ValidationMetrics.all()) {
      if (!byMetric.containsKey(m.name())) {
        continue; // another task's
      }
      double value = byMetric.get(m.name());
      out.put(m.name(), value);
      m.aliases().forEach(alias -> out.put(alias, value));
    }
    byMetric.forEach(out::putIfAbsent); // the per-label figures
    return out;
  }
}
