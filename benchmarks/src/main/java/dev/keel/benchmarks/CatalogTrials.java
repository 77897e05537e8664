package dev.keel.benchmarks;

import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import dev.keel.tables.catalog.CatalogTables;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The latest row of every trial in the catalog's {@code _keel/trials} Delta table, read once for
 * all experiments (reading it per experiment, as {@code ExperimentHistory} does for one, takes
 * seconds each once a soak has appended hundreds of files).
 */
final class CatalogTrials {
  /** A trial's latest row. */
  record Trial(long trialId, String state, String error) {}

  private CatalogTrials() {}

  /**
   * Experiment id → trial id → latest row (by the row's time; a later row of the same time wins).
   */
  static Map<String, Map<Long, Trial>> read(StorageRoot root) {
    Engine engine = DeltaTables.defaultEngine();
    String uri =
        DeltaTables.displayUri(root.resolve(CatalogTables.DIRECTORY + "/" + CatalogTables.TRIALS));
    List<Map<String, Object>> rows =
        DeltaTables.latestSnapshot(engine, uri)
            .map(s -> TableRows.read(engine, s))
            .orElse(List.of());
    Map<String, Map<Long, Instant>> times = new HashMap<>();
    Map<String, Map<Long, Trial>> out = new HashMap<>();
    for (Map<String, Object> r : rows) {
      String experiment = (String) r.get("experiment_id");
      long trial = (Long) r.get("trial_id");
      Instant time = (Instant) r.get("time");
      Instant seen = times.computeIfAbsent(experiment, k -> new HashMap<>()).get(trial);
      if (seen == null || !time.isBefore(seen)) {
        times.get(experiment).put(trial, time);
        out.computeIfAbsent(experiment, k -> new TreeMap<>())
            .put(trial, new Trial(trial, text(r.get("state")), text(r.get("error"))));
      }
    }
    return out;
  }

  private static String text(Object o) {
    return o == null ? "" : (String) o;
  }
}
