package dev.keel.tables.catalog;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.checkpoint.BestCheckpoints;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialState;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Rebuilds a finished experiment from its catalog rows: the latest row of the experiment and of
 * each trial, and of each checkpoint (a later DELETED row means checkpoint GC removed it). What
 * Temporal's history no longer holds once the workflow's retention has passed, the catalog still
 * does.
 */
final class ExperimentRecords {
  private final Engine engine;
  private final Function<String, String> tableUri;

  ExperimentRecords(Engine engine, Function<String, String> tableUri) {
    this.engine = engine;
    this.tableUri = tableUri;
  }

  /**
   * @throws IllegalArgumentException naming the experiment and why it cannot be used
   */
  ExperimentRecord read(String experimentId) {
    Map<String, Object> experiment =
        latest(rows(CatalogTables.EXPERIMENTS, experimentId), r -> "experiment").values().stream()
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no experiment '"
                            + experimentId
                            + "' in the catalog "
                            + tableUri.apply(CatalogTables.EXPERIMENTS)));
    String state = (String) experiment.get("state");
    if (!ExperimentState.State.COMPLETED.name().equals(state)) {
      throw new IllegalArgumentException(
          "experiment "
              + experimentId
              + " is "
              + state
              + ": only a COMPLETED experiment's best trial can be reused");
    }
    ExperimentConfig config =
        parse((String) experiment.get("config_json"), ExperimentConfig.newBuilder()).build();
    ExperimentState.Builder s =
        ExperimentState.newBuilder()
            .setExperimentId(experimentId)
            .setName(config.getName())
            .setState(ExperimentState.State.COMPLETED)
            .setSearcher(config.getSearcher().getName())
            .setMetric(config.getSearcher().getMetric())
            .setSmallerIsBetter(config.getSearcher().getSmallerIsBetter())
            .setData(
                TableRef.newBuilder()
                    .setUri(text(experiment.get("data_table")))
                    .setVersion(
                        experiment.get("data_version") == null
                            ? 0
                            : (Long) experiment.get("data_version")));
    latest(rows(CatalogTables.TRIALS, experimentId), r -> r.get("trial_id")).values().stream()
        .sorted(Comparator.comparingLong(r -> (Long) r.get("trial_id")))
        .forEach(
            r ->
                s.addTrials(
                    TrialState.newBuilder()
                        .setTrialId((Long) r.get("trial_id"))
                        .setState(TrialState.State.valueOf((String) r.get("state")))
                        .putAllHparams(
                            parse(text(r.get("hparams_json")), Struct.newBuilder())
                                .getFieldsMap())));
    Optional<CheckpointRef> best = best(experimentId, config.getSearcher().getSmallerIsBetter());
    if (best.isEmpty()) {
      throw new IllegalArgumentException(
          "experiment " + experimentId + " has no saved validated checkpoint left to reuse");
    }
    s.setBestTrialId(Long.parseLong(best.get().getTrialId().substring("trial-".length())))
        .setBestMetric(best.get().getMetricsOrThrow(CheckpointMetrics.SEARCHER_METRIC));
    return ExperimentRecord.newBuilder()
        .setConfig(config)
        .setResult(ExperimentResult.newBuilder().setState(s).setBestCheckpoint(best.get()))
        .build();
  }

  /** The best saved checkpoint as the experiment itself ranked them ({@link BestCheckpoints}). */
  private Optional<CheckpointRef> best(String experimentId, boolean smallerIsBetter) {
    return BestCheckpoints.best(
        latest(rows(CatalogTables.CHECKPOINTS, experimentId), r -> r.get("uuid")).values().stream()
            .filter(
                r ->
                    "SAVED".equals(r.get("state"))
                        && r.get("metric") != null
                        && r.get("length") != null)
            .map(
                r ->
                    CheckpointRef.newBuilder()
                        .setUuid((String) r.get("uuid"))
                        .setUri((String) r.get("uri"))
                        .setExperimentId(experimentId)
                        .setTrialId("trial-" + r.get("trial_id"))
                        .setBatches((Long) r.get("batches"))
                        .setSizeBytes((Long) r.get("size_bytes"))
                        .putMetrics(CheckpointMetrics.SEARCHER_METRIC, (Double) r.get("metric"))
                        .putMetrics(CheckpointMetrics.LENGTH, (Long) r.get("length"))
                        .build())
            .toList(),
        smallerIsBetter);
  }

  private List<Map<String, Object>> rows(String table, String experimentId) {
    return DeltaTables.latestSnapshot(engine, tableUri.apply(table))
        .map(snapshot -> TableRows.read(engine, snapshot))
        .orElse(List.of())
        .stream()
        .filter(r -> experimentId.equals(r.get("experiment_id")))
        .toList();
  }

  /**
   * The latest row (by time, then by position) per key: the current state of what the key names.
   */
  static Map<Object, Map<String, Object>> latest(
      List<Map<String, Object>> rows, Function<Map<String, Object>, Object> key) {
    Map<Object, Map<String, Object>> out = new LinkedHashMap<>();
    for (Map<String, Object> r : rows) {
      out.merge(
          key.apply(r),
          r,
          (a, b) -> ((Instant) b.get("time")).isBefore((Instant) a.get("time")) ? a : b);
    }
    return out;
  }

  private static String text(Object o) {
    return o == null ? "" : (String) o;
  }

  private static <B extends Message.Builder> B parse(String json, B builder) {
    if (json.isEmpty()) {
      return builder;
    }
    try {
      JsonFormat.parser().ignoringUnknownFields().merge(json, builder);
      return builder;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("unreadable catalog row: " + e.getMessage(), e);
    }
  }
}
