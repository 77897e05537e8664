package dev.keel.tables;

import dev.keel.storage.S3Settings;
import dev.keel.storage.StorageFailures;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
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

  /**
   * Engine info of a commit made in single-writer mode on a store that ignores conditional PUT
   * ({@code KEEL_S3_SINGLE_WRITER}): the table's history shows which versions had no protection
   * against a concurrent writer.
   */
  public static final String SINGLE_WRITER_ENGINE_INFO =
      "Keel (single-writer mode: the store ignores If-None-Match)";

  /** Kernel's setting for the log store of a URI scheme. */
  static final String LOG_STORE_KEY = "io.delta.kernel.logStore.%s.impl";

  private static final String LOCAL_FS_KEY = "fs.file.impl";
  private static final String LOCAL_ABSTRACT_FS_KEY = "fs.AbstractFileSystem.file.impl";

  private static volatile CachedEngine defaultEngine;

  private record CachedEngine(S3Settings settings, Engine engine) {}

  private DeltaTables() {}

  /**
   * A shared engine over a default Hadoop configuration plus this process's AWS settings ({@link
   * S3Settings#fromEnvironment()}), writing Snappy-compressed Parquet. Rebuilt when the AWS
   * settings change (tests).
   */
  public static Engine defaultEngine() {
    S3Settings s3 = S3Settings.fromEnvironment();
    CachedEngine e = defaultEngine;
    if (e == null || !e.settings().equals(s3)) {
      synchronized (DeltaTables.class) {
        e = defaultEngine;
        if (e == null || !e.settings().equals(s3)) {
          e = new CachedEngine(s3, newEngine(new Configuration(), s3));
          defaultEngine = e;
        }
      }
    }
    return e.engine();
  }

  /** An engine over {@code conf} and this process's AWS settings. */
  public static Engine newEngine(Configuration conf) {
    return newEngine(conf, S3Settings.fromEnvironment());
  }

  /**
   * An engine over {@code conf} that reaches S3 with {@code s3}. Kernel's default Parquet writer
   * reads {@code parquet.compression} from the Hadoop configuration and writes UNCOMPRESSED without
   * it, so SNAPPY is set unless the caller chose a codec. The {@code fs.s3a.*} keys of {@code s3}
   * replace those in {@code conf}.
   *
   * <p>S3: tables are read and written through Hadoop S3A ({@code s3://} URIs are mapped to {@code
   * s3a://}, see {@link #tablePath}); commits go through {@link S3ConditionalPutLogStore}, so
   * several writers (several processes) may append to one table.
   */
  public static Engine newEngine(Configuration conf, S3Settings s3) {
    Configuration c = new Configuration(conf);
    if (c.get("parquet.compression") == null) {
      c.set("parquet.compression", "SNAPPY");
    }
    if (c.get(LOCAL_FS_KEY) == null) { // unless the caller chose one
      c.set(LOCAL_FS_KEY, NioLocalFileSystem.class.getName());
      c.set(LOCAL_ABSTRACT_FS_KEY, NioLocalFileSystem.Fs.class.getName());
    }
    // not "unless set": core-default.xml gives most fs.s3a keys a value already
    s3.hadoopProperties().forEach(c::set);
    for (String scheme : List.of("s3a", "s3")) {
      if (c.get(String.format(LOG_STORE_KEY, scheme)) == null) {
        c.set(String.format(LOG_STORE_KEY, scheme), S3ConditionalPutLogStore.class.getName());
      }
    }
    return DefaultEngine.create(c);
  }

  /**
   * Normalises a table URI for Kernel: a plain path becomes an absolute {@code file:} URI, {@code
   * s3://} becomes {@code s3a://} (Hadoop's S3 connector).
   */
  public static String tablePath(String tableUri) {
    if (tableUri == null || tableUri.isBlank()) {
      throw new IllegalArgumentException("table URI is empty");
    }
    String s = tableUri.strip();
    if (s.startsWith("s3://")) {
      return "s3a://" + s.substring("s3://".length());
    }
    if (s.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !s.matches("^[A-Za-z]:[\\\\/].*")) {
      if (s.startsWith("file:")) {
        return withoutTrailingSlash(
            Path.of(URI.create(s)).toAbsolutePath().normalize().toUri().toString());
      }
      return withoutTrailingSlash(s);
    }
    return withoutTrailingSlash(Path.of(s).toAbsolutePath().normalize().toUri().toString());
  }

  /**
   * Path.toUri() ends a directory that exists with a slash: one table, one spelling, whether it
   * exists yet or not.
   */
  private static String withoutTrailingSlash(String uri) {
    return uri.endsWith("/") && !uri.endsWith("://") && !uri.equals("file:///")
        ? uri.substring(0, uri.length() - 1)
        : uri;
  }

  /**
   * The URI to show users and put in results: like {@link #tablePath} but S3 stays {@code s3://}.
   */
  public static String displayUri(String tableUri) {
    String p = tablePath(tableUri);
    return p.startsWith("s3a://") ? "s3://" + p.substring("s3a://".length()) : p;
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
    } catch (RuntimeException e) {
      throw StorageFailures.translate(displayUri(tableUri), e);
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
      StorageFailures.nonRetryable(displayUri(tableUri), e)
          .ifPresent(
              f -> {
                throw f;
              });
      // e.g. the version's log file was cleaned up by log retention
      throw new IllegalArgumentException(
          "table "
              + tableUri
              + " has no version "
              + version
              + " (latest is "
              + last
              + "): "
              + e.getMessage(),
          e);
    }
  }
}
