package dev.keel.tables.catalog;

import dev.keel.api.v1.CatalogRow;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one experiment has recorded so far: every validation metric, the latest row of each trial
 * and of each checkpoint. A running experiment appends its catalog rows in batches, so a reader
 * passes the rows it still holds (its {@code pendingCatalog} query) and gets them joined with the
 * tables', each row once even when a batch was appended between the query and the read.
 */
public final class ExperimentHistory {
  /** One validation metric of one trial. */
  public record Metric(
      long trialId, String name, double value, long length, long batches, Instant time) {}

  /** The latest row of one trial; {@code length} is how far it trained, in the searcher's unit. */
  public record Trial(
      long trialId, String state, String error, long length, String hparamsJson, Instant time) {}

  /**
   * The latest row of one checkpoint: SAVED, or DELETED by checkpoint GC. {@code length} and {@code
   * metric} are null for checkpoints saved between validations; a deleted checkpoint keeps those of
   * its SAVED row.
   */
  public record Checkpoint(
      long trialId,
      String uuid,
      String state,
      String uri,
      long sizeBytes,
      long batches,
      Long length,
      Double metric,
      Instant time) {}

  /**
   * The experiment's rows, trials and checkpoints by id, metrics by trial then batches; {@code
   * configJson} is the experiment's config as its catalog row holds it (empty when there is no such
   * row yet).
   */
  public record Records(
      String configJson, List<Trial> trials, List<Metric> metrics, List<Checkpoint> checkpoints) {
    /** No rows at all: an experiment the catalog does not know yet. */
    public static Records empty() {
      return new Records("", List.of(), List.of(), List.of());
    }
  }

  private final Engine engine;
  private final StorageRoot storage;

  public ExperimentHistory(StorageRoot storage) {
    this.engine = DeltaTables.defaultEngine();
    this.storage = storage;
  }

  /**
   * The tables' rows of {@code experimentId} joined with {@code pending}, rows it has not appended
   * yet.
   */
  public Records read(String experimentId, List<CatalogRow> pending) {
    String configJson =
        rows(CatalogTables.EXPERIMENTS, experimentId).stream()
            .map(r -> text(r.get("config_json")))
            .filter(json -> !json.isEmpty())
            .findFirst()
            .orElse("");
    List<Map<String, Object>> trials = rows(CatalogTables.TRIALS, experimentId);
    List<Map<String, Object>> metrics = rows(CatalogTables.METRICS, experimentId);
    List<Map<String, Object>> checkpoints = rows(CatalogTables.CHECKPOINTS, experimentId);
    for (CatalogRow r : pending) {
      switch (r.getKind()) {
        case CatalogTables.TRIALS ->
            trials.add(
                Map.of(
                    "trial_id",
                    r.getTrialId(),
                    "state",
                    r.getState(),
                    "error",
                    r.getName(),
                    "length",
                    r.getLength(),
                    "hparams_json",
                    r.getJson(),
                    "time",
                    time(r)));
        case CatalogTables.METRICS ->
            metrics.add(
                Map.of(
                    "trial_id",
                    r.getTrialId(),
                    "name",
                    r.getName(),
                    "value",
                    r.getValue(),
                    "length",
                    r.getLength(),
                    "batches",
                    r.getBatches(),
                    "time",
                    time(r)));
        case CatalogTables.CHECKPOINTS -> checkpoints.add(checkpointRow(r));
        default -> { // experiments: the state is the caller's; the config is the same in every row
          if (configJson.isEmpty()) {
            configJson = r.getJson();
          }
        }
      }
    }
    List<Trial> trialList =
        ExperimentRecords.latest(trials, r -> r.get("trial_id")).values().stream()
            .map(
                r ->
                    new Trial(
                        (Long) r.get("trial_id"),
                        text(r.get("state")),
                        text(r.get("error")),
                        (Long) r.get("length"),
                        text(r.get("hparams_json")),
                        (Instant) r.get("time")))
            .sorted(Comparator.comparingLong(Trial::trialId))
            .toList();
    Set<Metric> metricSet = new LinkedHashSet<>();
    for (Map<String, Object> r : metrics) {
      metricSet.add(
          new Metric(
              (Long) r.get("trial_id"),
              text(r.get("name")),
              (Double) r.get("value"),
              (Long) r.get("length"),
              (Long) r.get("batches"),
              (Instant) r.get("time")));
    }
    List<Metric> metricList =
        metricSet.stream()
            .sorted(
                Comparator.comparingLong(Metric::trialId)
                    .thenComparingLong(Metric::batches)
                    .thenComparing(Metric::name))
            .toList();
    List<Checkpoint> checkpointList =
        ExperimentRecords.latest(checkpoints, r -> r.get("uuid")).values().stream()
            .map(r -> checkpoint(r, checkpoints))
            .sorted(
                Comparator.comparingLong(Checkpoint::trialId)
                    .thenComparingLong(Checkpoint::batches)
                    .thenComparing(Checkpoint::uuid))
            .toList();
    return new Records(configJson, trialList, metricList, checkpointList);
  }

  /** A DELETED row carries no length or metric: take them from the SAVED row of the same uuid. */
  private static Checkpoint checkpoint(Map<String, Object> latest, List<Map<String, Object>> all) {
    Map<String, Object> saved =
        all.stream()
            .filter(r -> latest.get("uuid").equals(r.get("uuid")) && "SAVED".equals(r.get("state")))
            .findFirst()
            .orElse(latest);
    return new Checkpoint(
        (Long) latest.get("trial_id"),
        (String) latest.get("uuid"),
        text(latest.get("state")),
        text(saved.get("uri") != null ? saved.get("uri") : latest.get("uri")),
        (Long) latest.get("size_bytes"),
        (Long) latest.get("batches"),
        (Long) saved.get("length"),
        (Double) saved.get("metric"),
        (Instant) latest.get("time"));
  }

  private static Map<String, Object> checkpointRow(CatalogRow r) {
    boolean unmeasured =
        CatalogTables.DELETED.equals(r.getState()) || CatalogTables.PERIODIC.equals(r.getName());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("trial_id", r.getTrialId());
    m.put("uuid", r.getCheckpointUuid());
    m.put("state", r.getState());
    m.put("uri", r.getUri());
    m.put("size_bytes", r.getSizeBytes());
    m.put("batches", r.getBatches());
    m.put("length", unmeasured ? null : r.getLength());
    m.put("metric", unmeasured ? null : r.getValue());
    m.put("time", time(r));
    return m;
  }

  private List<Map<String, Object>> rows(String table, String experimentId) {
    String uri = CatalogTables.uri(storage, table);
    return new ArrayList<>(
        DeltaTables.latestSnapshot(engine, uri)
            .map(snapshot -> TableRows.read(engine, snapshot))
            .orElse(List.of())
            .stream()
            .filter(r -> experimentId.equals(r.get("experiment_id")))
            .toList());
  }

  /**
   * The row's time in whole milliseconds, as the tables hold it, so that a pending row equals its
   * appended copy.
   */
  private static Instant time(CatalogRow r) {
    return Instant.ofEpochMilli(r.getTimeMillis());
  }

  private static String text(Object o) {
    return o == null ? "" : (String) o;
  }
}
