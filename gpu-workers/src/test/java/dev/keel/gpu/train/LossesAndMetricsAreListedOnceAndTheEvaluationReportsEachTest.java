package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.Task;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.metric.Losses;
import dev.keel.gpu.train.metric.Metric;
import dev.keel.gpu.train.metric.ValidationMetrics;
import dev.keel.tables.dataset.LabeledImages;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The losses and validation metrics are listed once ({@link Losses}, {@link ValidationMetrics});
 * the trainer's evaluation reports every listed metric under its names, with the values a plain
 * computation over the model's outputs gives, across more than one evaluation batch.
 */
class LossesAndMetricsAreListedOnceAndTheEvaluationReportsEachTest {

  @Test
  void eachNameIsListedOnce() {
    assertEquals(
        List.of("softmax_cross_entropy", "mse", "l1", "huber", "bce_with_logits"),
        Losses.all().stream().map(l -> l.name()).toList());
    assertSame(Losses.DEFAULT, Losses.of("softmax_cross_entropy").orElseThrow());
    assertEquals(
        List.of(
            "accuracy",
            "validation_accuracy",
            "validation_loss",
            "validation_macro_f1",
            "validation_mae",
            "validation_r2",
            "validation_rmse",
            "validation_roc_auc",
            "validation_roc_auc.<label>",
            "validation_top5_accuracy"),
        ValidationMetrics.names());
    assertSame(ValidationMetrics.ACCURACY, ValidationMetrics.of("accuracy").orElseThrow());
    assertTrue(ValidationMetrics.of("train_loss").isEmpty(), "train_loss is not a validation one");
    assertTrue(ValidationMetrics.LOSS.smallerIsBetter());
    assertTrue(!ValidationMetrics.ACCURACY.smallerIsBetter());
  }

  @Test
  void theEvaluationReportsEveryListedMetricAsAPlainComputationDoes() {
    Hyperparameters hp =
        Hyperparameters.resolve(
            new FashionCnn(),
            Map.of(),
            Map.of("width", Requests.num(4), "hidden", Requests.num(16)));
    int n = Evaluation.BATCH + 234; // two batches, the second a partial one
    LabeledImages rows = FashionMnist.train().slice(0, n);
    try (TrainableModel model = TrainableModel.initialize(new FashionCnn(), hp, 7)) {
      Evaluation e = Evaluation.of(model, rows);

      long correct = 0;
      double lossSum = 0;
      try (NDManager m = model.manager().newSubManager()) {
        NDArray logits = model.logits(Batches.inputs(m, rows, Batches.range(0, n)));
        float[] out = logits.toFloatArray();
        int classes = out.length / n;
        for (int i = 0; i < n; i++) {
          int best = 0;
          double max = Double.NEGATIVE_INFINITY;
          for (int c = 0; c < classes; c++) {
            max = Math.max(max, out[i * classes + c]);
            best = out[i * classes + c] > out[i * classes + best] ? c : best;
          }
          double sumExp = 0;
          for (int c = 0; c < classes; c++) {
            sumExp += Math.exp(out[i * classes + c] - max);
          }
          lossSum += -(out[i * classes + rows.labels()[i]] - max - Math.log(sumExp));
          correct += best == rows.labels()[i] ? 1 : 0;
        }
      }
      assertEquals((double) correct / n, e.accuracy(), 1e-12);
      assertEquals(lossSum / n, e.loss(), 1e-4);
      assertEquals(n, e.examples());
      Map<String, Double> reported = e.metrics();
      assertEquals(
          List.of(
              "accuracy",
              "validation_accuracy",
              "validation_loss",
              "validation_macro_f1",
              "validation_roc_auc",
              "validation_top5_accuracy"),
          reported.keySet().stream().sorted().collect(Collectors.toList()));
      for (Metric metric : ValidationMetrics.of(Task.CLASSIFICATION)) {
        for (String alias : metric.aliases()) {
          assertEquals(reported.get(metric.name()), reported.get(alias), alias);
        }
      }
    }
  }
}
