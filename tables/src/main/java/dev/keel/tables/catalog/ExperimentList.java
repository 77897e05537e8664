package dev.keel.tables.catalog;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The experiments of a storage root as the catalog ({@code _keel/experiments}) records them, newest
 * first: the latest row of each, so an experiment long gone from Temporal's retention is still
 * listed.
 */
public final class ExperimentList {
  /**
   * One experiment's latest catalog row, the searcher's metric from its config and the best value
   * of that metric any of its validations appended so far (null before the first).
   */
  public record Summary(
      String experimentId,
      String name,
      String state,
      String dataTable,
      Long dataVersion,
      Instant time,
      String metric,
      Double bestMetric) {
    public Optional<String> searcherMetric() {
      return Optional.ofNullable(metric).filter(m -> !m.isEmpty());
    }
  }

  /** One page of the list and how many experiments matched in all. */
  public record Page(List<Summary> experiments, int total, int offset, int limit) {}

  private final Engine engine;
  private final String tableUri;
  private final String metricsUri;

  /** Whether each summarised experiment's searcher minimises its metric, from its config. */
  private final Map<String, Boolean> smallerIsBetter = new HashMap<>();

  public ExperimentList(StorageRoot storage) {
    this.engine = DeltaTables.defaultEngine();
    this.tableUri = CatalogTables.uri(storage, CatalogTables.EXPERIMENTS);
    this.metricsUri = CatalogTables.uri(storage, CatalogTables.METRICS);
  }

  /**
   * @param state only experiments whose latest state is this (any case), or every state when empty
   * @param nameContains only names containing this (any case), or every name when empty
   * @throws IllegalArgumentException for a negative offset or a limit outside 1..1000
   */
  public Page page(Optional<String> state, Optional<String> nameContains, int offset, int limit) {
    Paging.check(offset, limit);
    List<Summary> matching =
        latestRows().values().stream()
            .map(this::summary)
            .filter(s -> state.map(want -> want.equalsIgnoreCase(s.state())).orElse(true))
            .filter(
                s ->
                    nameContains
                        .map(
                            part ->
                                s.name() != null
                                    && s.name()
                                        .toLowerCase(Locale.ROOT)
                                        .contains(part.toLowerCase(Locale.ROOT)))
                        .orElse(true))
            .sorted(
                Comparator.comparing(Summary::time).reversed().thenComparing(Summary::experimentId))
            .toList();
    return new Page(
        withBestMetrics(Paging.slice(matching, offset, limit)), matching.size(), offset, limit);
  }

  /** The experiment's summary, or empty when the catalog has no row of it. */
  public Optional<Summary> find(String experimentId) {
    return Optional.ofNullable(latestRows().get(experimentId))
        .map(this::summary)
        .map(s -> withBestMetrics(List.of(s)).get(0));
  }

  private Map<Object, Map<String, Object>> latestRows() {
    List<Map<String, Object>> rows =
        DeltaTables.latestSnapshot(engine, tableUri)
            .map(s -> TableRows.read(engine, s))
            .orElse(List.of());
    return ExperimentRecords.latest(rows, r -> r.get("experiment_id"));
  }

  /** One read of the metrics table for the whole page. */
  private List<Summary> withBestMetrics(List<Summary> page) {
    if (page.isEmpty()) {
      return page;
    }
    Map<String, Summary> byId = new LinkedHashMap<>();
    page.forEach(s -> byId.put(s.experimentId(), s));
    Map<String, Double> best = new HashMap<>();
    for (Map<String, Object> r :
        DeltaTables.latestSnapshot(engine, metricsUri)
            .map(s -> TableRows.read(engine, s))
            .orElse(List.of())) {
      Summary s = byId.get((String) r.get("experiment_id"));
      if (s != null && s.metric() != null && s.metric().equals(r.get("name"))) {
        double v = (Double) r.get("value");
        best.merge(
            s.experimentId(),
            v,
            smallerIsBetter.getOrDefault(s.experimentId(), true) ? Math::min : Math::max);
      }
    }
    return page.stream()
        .map(
            s ->
                new Summary(
                    s.experimentId(),
                    s.name(),
                    s.state(),
                    s.dataTable(),
                    s.dataVersion(),
                    s.time(),
                    s.metric(),
                    best.get(s.experimentId())))
        .toList();
  }

  private Summary summary(Map<String, Object> r) {
    String id = (String) r.get("experiment_id");
    SearcherConfig searcher = searcher((String) r.get("config_json"));
    smallerIsBetter.put(id, searcher.getSmallerIsBetter());
    return new Summary(
        id,
        (String) r.get("name"),
        (String) r.get("state"),
        (String) r.get("data_table"),
        (Long) r.get("data_version"),
        (Instant) r.get("time"),
        searcher.getMetric(),
        null);
  }

  private static SearcherConfig searcher(String configJson) {
    if (configJson == null || configJson.isEmpty()) {
      return SearcherConfig.getDefaultInstance();
    }
    try {
      ExperimentConfig.Builder config = ExperimentConfig.newBuilder();
      JsonFormat.parser().ignoringUnknownFields().merge(configJson, config);
      return config.getSearcher();
    } catch (InvalidProtocolBufferException e) {
      return SearcherConfig
          .getDefaultInstance(); // a row of an older schema: listed without its metric
    }
  }
}
