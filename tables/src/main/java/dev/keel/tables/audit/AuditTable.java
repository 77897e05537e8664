package dev.keel.tables.audit;

import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import dev.keel.tables.catalog.CatalogTables;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code <storage root>/_keel/audit}: who did what through the API, one row per write request
 * (submissions, pauses, kills, promotions), refused ones included. It only grows, and any Delta
 * reader can query it.
 */
public final class AuditTable {
  public static final String TABLE = "audit";

  static final StructType SCHEMA =
      new StructType()
          .add("time", TimestampType.TIMESTAMP, false)
          .add("who", StringType.STRING, false)
          .add("role", StringType.STRING, false)
          .add("action", StringType.STRING, false)
          .add("target", StringType.STRING, true)
          .add("status", IntegerType.INTEGER, false);

  /**
   * One write request.
   *
   * @param action {@code METHOD /path}
   * @param target what it acted on: an experiment, pipeline or model version; null when none
   * @param status the HTTP status it was answered with
   */
  public record Entry(
      Instant time, String who, String role, String action, String target, int status) {}

  private final Engine engine;
  private final StorageRoot storage;

  public AuditTable(StorageRoot storage) {
    this.engine = DeltaTables.defaultEngine();
    this.storage = storage;
  }

  public String tableUri() {
    return storage.resolve(CatalogTables.DIRECTORY + "/" + TABLE);
  }

  public void append(Entry e) {
    new DeltaTableWriter(engine, tableUri(), SCHEMA, Map.of())
        .append(
            Columns.of(1)
                .add("time", new long[] {Math.multiplyExact(e.time().toEpochMilli(), 1000L)})
                .add("who", new String[] {e.who()})
                .add("role", new String[] {e.role()})
                .add("action", new String[] {e.action()})
                .add("target", new String[] {e.target()})
                .add("status", new int[] {e.status()}));
  }

  /**
   * The entries about {@code target} (every entry when empty), oldest first; none before the first
   * write.
   */
  public List<Entry> read(Optional<String> target) {
    return all().stream().filter(e -> target.isEmpty() || target.get().equals(e.target())).toList();
  }

  /**
   * Every entry, oldest first: decoded again only when the table has a new version, since the
   * experiment view reads it every second while someone follows an experiment.
   */
  private List<Entry> all() {
    Optional<Snapshot> snapshot = DeltaTables.latestSnapshot(engine, tableUri());
    long version = snapshot.map(Snapshot::getVersion).orElse(-1L);
    Read last = read;
    if (last != null && last.version() == version) {
      return last.entries();
    }
    List<Entry> entries =
        snapshot.map(s -> TableRows.read(engine, s)).orElse(List.of()).stream()
            .map(
                r ->
                    new Entry(
                        (Instant) r.get("time"),
                        (String) r.get("who"),
                        (String) r.get("role"),
                        (String) r.get("action"),
                        (String) r.get("target"),
                        (Integer) r.get("status")))
            .sorted(Comparator.comparing(Entry::time))
            .toList();
    read = new Read(version, entries);
    return entries;
  }

  private record Read(long version, List<Entry> entries) {}

  private volatile Read read;
}
