package dev.keel.workflows.experiment;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialState;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Catalog rows collected in workflow code and appended in batches, not one commit per metric. Each
 * batch has a sequence number carried across continue-as-new, which the catalog activity uses as a
 * Delta transaction version: a retried append writes nothing twice. Rows carry the workflow's time
 * when they are added.
 */
final class CatalogBuffer {
  private final String experimentId;
  private final CatalogActivities activities;
  private final int batchRows;
  private final LongSupplier clock;
  private final List<CatalogRow> pending = new ArrayList<>();
  private long sequence;

  /**
   * @param activities null keeps no catalog (orchestration tests)
   * @param clock {@code Workflow::currentTimeMillis} in workflow code
   */
  CatalogBuffer(
      String experimentId, CatalogActivities activities, int batchRows, LongSupplier clock) {
    this.experimentId = experimentId;
    this.activities = activities;
    this.batchRows = batchRows;
    this.clock = clock;
  }

  void restore(long sequence, List<CatalogRow> rows) {
    this.sequence = sequence;
    pending.addAll(rows);
  }

  long sequence() {
    return sequence;
  }

  List<CatalogRow> pending() {
    return List.copyOf(pending);
  }

  void experiment(ExperimentState.State state, ExperimentConfig config, TableRef data) {
    add(
        row("experiments")
            .setState(state.name())
            .setName(config.getName())
            .setUri(data.getUri())
            .setLength(data.getVersion())
            .setJson(json(config)));
  }

  void trial(TrialState trial) {
    add(
        row("trials")
            .setTrialId(trial.getTrialId())
            .setState(trial.getState().name())
            .setName(trial.getError())
            .setLength(units(trial.getCompletedLength()))
            .setCheckpointUuid(trial.getSourceCheckpoint().getUuid())
            .setJson(hparamsJson(trial)));
  }

  void validation(long trialId, TrialReport.Validation v) {
    periodicCheckpoints(trialId, v.getPeriodicCheckpointsList());
    new TreeMap<>(v.getMetricsMap())
        .forEach(
            (name, value) ->
                add(
                    row("metrics")
                        .setTrialId(trialId)
                        .setName(name)
                        .setValue(value)
                        .setLength(units(v.getLength()))
                        .setBatches(v.getBatches())
                        .setCheckpointUuid(v.getCheckpoint().getUuid())));
    add(
        row("checkpoints")
            .setTrialId(trialId)
            .setState("SAVED")
            .setCheckpointUuid(v.getCheckpoint().getUuid())
            .setUri(v.getCheckpoint().getUri())
            .setSizeBytes(v.getCheckpoint().getSizeBytes())
            .setBatches(v.getBatches())
            .setLength(units(v.getLength()))
            .setValue(v.getMetric()));
  }

  /** Checkpoints taken between validations: SAVED rows without a length or searcher metric. */
  void periodicCheckpoints(long trialId, List<CheckpointRef> checkpoints) {
    for (CheckpointRef c : checkpoints) {
      add(
          row("checkpoints")
              .setTrialId(trialId)
              .setState("SAVED")
              .setName("periodic")
              .setCheckpointUuid(c.getUuid())
              .setUri(c.getUri())
              .setSizeBytes(c.getSizeBytes())
              .setBatches(c.getBatches()));
    }
  }

  void deleted(List<CheckpointRef> checkpoints) {
    for (CheckpointRef c : checkpoints) {
      add(
          row("checkpoints")
              .setTrialId(trialNumber(c.getTrialId()))
              .setState("DELETED")
              .setCheckpointUuid(c.getUuid())
              .setUri(c.getUri())
              .setSizeBytes(c.getSizeBytes())
              .setBatches(c.getBatches()));
    }
  }

  void flushIfFull() {
    if (pending.size() >= batchRows) {
      flush();
    }
  }

  void flush() {
    if (pending.isEmpty()) {
      return;
    }
    if (activities != null) {
      activities.append(
          CatalogAppend.newBuilder()
              .setExperimentId(experimentId)
              .setSequence(sequence + 1)
              .addAllRows(pending)
              .build());
    }
    sequence++;
    pending.clear();
  }

  private void add(CatalogRow.Builder row) {
    pending.add(row.setTimeMillis(clock.getAsLong()).build());
  }

  private CatalogRow.Builder row(String kind) {
    return CatalogRow.newBuilder().setKind(kind).setExperimentId(experimentId);
  }

  /** Catalog lengths are plain numbers in the unit of the experiment's searcher.max_length. */
  private static long units(Length length) {
    return TrainingLength.of(length).units();
  }

  private static long trialNumber(String trialId) {
    try {
      return Long.parseLong(trialId.replace("trial-", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static String hparamsJson(TrialState trial) {
    Struct.Builder s = Struct.newBuilder();
    new TreeMap<>(trial.getHparamsMap()).forEach(s::putFields);
    return json(s.build());
  }

  private static String json(MessageOrBuilder m) {
    try {
      return JsonFormat.printer()
          .omittingInsignificantWhitespace()
          .preservingProtoFieldNames()
          .print(m);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }
}
