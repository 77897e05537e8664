package dev.keel.gpu.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.keel.tables.dataset.LabeledExamples;
import java.util.Map;

/** Accuracy and mean cross-entropy of a model on labelled examples (images or feature vectors). */
public record Evaluation(double accuracy, double loss, int examples) {
  public static final int BATCH = 1000;

  public static Evaluation of(TrainableModel model, LabeledExamples data) {
    long correct = 0;
    double lossSum = 0;
    for (int from = 0; from < data.size(); from += BATCH) {
      int[] rows = Batches.range(from, Math.min(data.size(), from + BATCH));
      try (NDManager batch = model.manager().newSubManager()) {
        NDArray x = Batches.inputs(batch, data, rows);
        NDArray y = Batches.labels(batch, data, rows);
        NDArray logits = model.logits(x);
        lossSum += TrainableModel.crossEntropy(logits, y).sum().getFloat();
        correct += logits.argMax(1).eq(y).sum().getLong();
      }
    }
    return new Evaluation((double) correct / data.size(), lossSum / data.size(), data.size());
  }

  /** As checkpoint / result metrics. */
  public Map<String, Double> metrics() {
    return Map.of(
        Metrics.VALIDATION_ACCURACY, accuracy,
        Metrics.ACCURACY, accuracy,
        Metrics.VALIDATION_LOSS, loss);
  }
}
