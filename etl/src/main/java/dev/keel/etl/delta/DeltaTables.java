package dev.keel.etl.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;

/**
 * Small helpers around Delta Kernel: the engine (Snappy Parquet), table URIs, snapshots.
 *
 * <p>Table URIs may be plain paths ({@code /data/t}, {@code ./t}) or URIs ({@code file:///data/t}).
 */
public final class DeltaTables {
  /** Engine info recorded in every commit. */
  public static final String ENGINE_INFO = "Keel";

  private static volatile Engine defaultEngine;

  private DeltaTables() {}

  /** A shared engine over a default Hadoop configuration, writing Snappy-compressed Parquet. */
  public static Engine defaultEngine() {
    Engine e = defaultEngine;
    if (e == null) {
      synchronized (DeltaTables.class) {
        e = defaultEngine;
        if (e == null) {
          e = newEngine(new Configuration());
          defaultEngine = e;
        }
      }
    }
    return e;
  }

  /**
   * An engine over {@code conf}. Kernel's default Parquet writer reads {@code parquet.compression}
   * from the Hadoop configuration and writes UNCOMPRESSED without it, so SNAPPY is set unless the
   * caller chose a codec.
   */
  public static Engine newEngine(Configuration conf) {
    Configuration c = new Configuration(conf);
    if (c.get("parquet.compression") == null) {
      c.set("parquet.compression", "SNAPPY");
    }
    return DefaultEngine.create(c);
  }

  /** Normalises a table URI for Kernel: a plain path becomes an absolute {@code file:} URI. */
  public static String tablePath(String tableUri) {
    if (tableUri == null || tableUri.isBlank()) {
      throw new IllegalArgumentException("table URI is empty");
    }
    String s = tableUri.strip();
    if (s.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !s.matches("^[A-Za-z]:[\\\\/].*")) {
      if (s.startsWith("file:")) {
        return Path.of(URI.create(s)).toAbsolutePath().normalize().toUri().toString();
      }
      return s;
    }
    return Path.of(s).toAbsolutePath().normalize().toUri().toString();
  }

  /** The latest committed version, or empty when there is no table at {@code tableUri}. */
  public static OptionalLong latestVersion(Engine engine, String tableUri) {
    return latestSnapshot(engine, tableUri)
        .map(s -> OptionalLong.of(s.getVersion()))
        .orElse(OptionalLong.empty());
  }

  /** The latest snapshot, or empty when there is no table at {@code tableUri}. */
  public static Optional<Snapshot> latestSnapshot(Engine engine, String tableUri) {
    try {
      return Optional.of(TableManager.loadSnapshot(tablePath(tableUri)).build(engine));
    } catch (TableNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * The snapshot at {@code version}.
   *
   * @throws IllegalArgumentException "table &lt;uri&gt; has no version N (latest is M)" when the
   *     version (or the table) does not exist
   */
  public static Snapshot snapshotAt(Engine engine, String tableUri, long version) {
    Optional<Snapshot> latest = latestSnapshot(engine, tableUri);
    if (latest.isEmpty()) {
      throw new IllegalArgumentException(
          "table " + tableUri + " has no version " + version + " (no Delta table there)");
    }
    long last = latest.get().getVersion();
    if (version < 0 || version > last) {
      throw new IllegalArgumentException(
          "table " + tableUri + " has no version " + version + " (latest is " + last + ")");
    }
    if (version == last) {
      return latest.get();
    }
    try {
      return TableManager.loadSnapshot(tablePath(tableUri)).atVersion(version).build(engine);
    } catch (RuntimeException e) {
      // e.g. the version's log file was cleaned up by log retention
      throw new IllegalArgumentException(
          "table " + tableUri + " has no version " + version + " (latest is " + last + "): "
              + e.getMessage(),
          e);
    }
  }
}
