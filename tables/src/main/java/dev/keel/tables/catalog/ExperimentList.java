package dev.keel.tables.catalog;

import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The experiments of a storage root as the catalog ({@code _keel/experiments}) records them, newest
 * first: the latest row of each, so an experiment long gone from Temporal's retention is still listed.
 */
public final class ExperimentList {
  /** One experiment's latest catalog row. */
  public record Summary(String experimentId, String name, String state, String dataTable, Long dataVersion,
      Instant time) {}

  /** One page of the list and how many experiments matched in all. */
  public record Page(List<Summary> experiments, int total, int offset, int limit) {}

  private final Engine engine;
  private final String tableUri;

  public ExperimentList(StorageRoot storage) {
    this.engine = DeltaTables.defaultEngine();
    this.tableUri = CatalogTables.uri(storage, CatalogTables.EXPERIMENTS);
  }

  /**
   * @param state only experiments whose latest state is this (any case), or every state when empty
   * @param nameContains only names containing this (any case), or every name when empty
   * @throws IllegalArgumentException for a negative offset or a limit outside 1..1000
   */
  public Page page(Optional<String> state, Optional<String> nameContains, int offset, int limit) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset: must be >= 0, got " + offset);
    }
    if (limit < 1 || limit > 1000) {
      throw new IllegalArgumentException("limit: must be between 1 and 1000, got " + limit);
    }
    List<Map<String, Object>> rows = DeltaTables.latestSnapshot(engine, tableUri)
        .map(s -> TableRows.read(engine, s)).orElse(List.of());
    List<Summary> matching = ExperimentRecords.latest(rows, r -> r.get("experiment_id")).values().stream()
        .map(ExperimentList::summary)
        .filter(s -> state.map(want -> want.equalsIgnoreCase(s.state())).orElse(true))
        .filter(s -> nameContains.map(part -> s.name() != null
            && s.name().toLowerCase(Locale.ROOT).contains(part.toLowerCase(Locale.ROOT))).orElse(true))
        .sorted(Comparator.comparing(Summary::time).reversed().thenComparing(Summary::experimentId))
        .toList();
    int from = Math.min(offset, matching.size());
    return new Page(matching.subList(from, Math.min(matching.size(), from + limit)), matching.size(), offset, limit);
  }

  private static Summary summary(Map<String, Object> r) {
    return new Summary((String) r.get("experiment_id"), (String) r.get("name"), (String) r.get("state"),
        (String) r.get("data_table"), (Long) r.get("data_version"), (Instant) r.get("time"));
  }
}
