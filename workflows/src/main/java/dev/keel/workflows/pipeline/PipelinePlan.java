package dev.keel.workflows.pipeline;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.Length;
import java.util.Map;
import java.util.TreeMap;

/** Pure arithmetic the pipeline derives from its request and the ingest result (deterministic). */
final class PipelinePlan {
  static final double DEFAULT_VALIDATION_FRACTION = 5000.0 / 60000.0;
  static final int DEFAULT_BATCH_SIZE = 64;
  static final long DEFAULT_CHECKPOINT_EVERY = 200;

  private PipelinePlan() {}

  /** The const values of a single-searcher experiment. */
  static Map<String, Value> constHparams(ExperimentConfig c) {
    Map<String, Value> out = new TreeMap<>();
    for (Map.Entry<String, Hyperparameter> e : c.getHyperparametersMap().entrySet()) {
      out.put(e.getKey(), e.getValue().getVal());
    }
    return out;
  }

  static double validationFraction(ExperimentConfig c) {
    return c.getData().hasValidationFraction() ? c.getData().getValidationFraction() : DEFAULT_VALIDATION_FRACTION;
  }

  static int batchSize(Map<String, Value> hparams) {
    Value v = hparams.get("batch_size");
    return v != null && v.hasNumberValue() && v.getNumberValue() >= 1 ? (int) v.getNumberValue() : DEFAULT_BATCH_SIZE;
  }

  /** Training rows: the train split less the held-out validation slice. */
  static long trainingRows(IngestResult ingest, ExperimentConfig c) {
    long train = ingest.getRowsPerSplitOrDefault("train", 0);
    return train - Math.round(train * validationFraction(c));
  }

  /** A length in batches, rounding records and epochs up to whole batches. */
  static long batches(Length length, long trainingRows, int batchSize) {
    return switch (length.getUnitCase()) {
      case BATCHES -> length.getBatches();
      case RECORDS -> ceilDiv(length.getRecords(), batchSize);
      case EPOCHS -> length.getEpochs() * ceilDiv(trainingRows, batchSize);
      case UNIT_NOT_SET -> 0;
    };
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
