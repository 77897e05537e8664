package dev.keel.workflows.inference;

import dev.keel.api.config.DriftConfigRules;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.InferenceRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * An Inference request's check, which names every missing or wrong field before any activity runs,
 * and its defaults. Pure, so workflow code runs it.
 */
final class InferenceRequests {
  private InferenceRequests() {}

  /** Empty when the request can run. */
  static List<String> problems(InferenceRequest request) {
    List<String> problems = new ArrayList<>();
    if (request.getCheckpoint().getUri().isBlank()) {
      problems.add("checkpoint.uri: required");
    }
    if (request.getData().getUri().isBlank()) {
      problems.add("data.uri: required");
    }
    if (request.getData().getVersion() < 0) {
      problems.add("data.version: must be >= 0, got " + request.getData().getVersion());
    }
    if (request.getPredictionsTableUri().isBlank() && !request.getEvaluateOnly()) {
      problems.add("predictions_table_uri: required");
    }
    if (request.getMaxParallelPartitions() < 0) {
      problems.add(
          "max_parallel_partitions: must be >= 0, got " + request.getMaxParallelPartitions());
    }
    if (request.getMaxPartitionRows() < 0) {
      problems.add("max_partition_rows: must be >= 0, got " + request.getMaxPartitionRows());
    }
    if (request.getHeartbeatTimeoutSeconds() < 0) {
      problems.add(
          "heartbeat_timeout_seconds: must be >= 0 (0: 60 s), got "
              + request.getHeartbeatTimeoutSeconds());
    }
    if (request.hasDrift()) {
      DriftConfigRules.validate(request.getDrift(), "drift")
          .forEach(p -> problems.add(p.toString()));
      if (!request.getDrift().hasReference() && !request.getModelVersion().matches(".+/[0-9]+")) {
        problems.add(
            "drift.reference: required when model_version (name/version) does not name a registered model");
      }
    }
    return problems;
  }

  static InferenceRequest withDefaults(InferenceRequest request) {
    InferenceRequest.Builder b = request.toBuilder();
    if (b.getSplit().isEmpty()) {
      b.setSplit(Splits.TEST);
    }
    if (b.getMaxParallelPartitions() == 0) {
      b.setMaxParallelPartitions(InferenceWorkflowImpl.DEFAULT_PARALLEL_PARTITIONS);
    }
    if (b.getMaxPartitionRows() == 0) {
      b.setMaxPartitionRows(InferenceWorkflowImpl.DEFAULT_PARTITION_ROWS);
    }
    return b.build();
  }
}
