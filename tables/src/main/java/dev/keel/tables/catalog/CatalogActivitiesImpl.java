package dev.keel.tables.catalog;

import static dev.keel.activities.FailureTypes.INVALID_ARGUMENT;
import static dev.keel.activities.FailureTypes.INVALID_TABLE;

import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogAppendResult;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.SplitCounter;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog activities over Delta tables under {@code <storage root>/_keel/} (schemas in {@link
 * CatalogTables}), on {@code file:} and {@code s3://} roots alike.
 *
 * <p>{@link #append}: the rows of each kind go to their table as ONE commit carrying a Delta
 * SetTransaction with appId {@code keel-catalog:<experiment_id>} and version = the batch's
 * sequence. A retried batch finds its transaction in each table and writes nothing ({@code
 * already_committed}); a batch that failed after committing some tables writes only the others.
 *
 * <p>{@link #describeTable}: pins the requested version (the latest when none is given) and counts
 * rows per split. A missing table or version is a non-retryable {@value FailureTypes#INVALID_TABLE}
 * failure naming both.
 */
public final class CatalogActivitiesImpl implements CatalogActivities {
  private static final Logger log = LoggerFactory.getLogger(CatalogActivitiesImpl.class);

  /** Prefix of the SetTransaction appId of an experiment's catalog batches. */
  public static final String TXN_APP_ID_PREFIX = "keel-catalog:";

  /**
   * One thread per catalog table, shared by every instance; daemon threads that never block the
   * JVM's exit.
   */
  private static final ExecutorService COMMITS =
      Executors.newFixedThreadPool(
          CatalogTables.NAMES.size(),
          r -> {
            Thread t = new Thread(r, "keel-catalog-commit");
            t.setDaemon(true);
            return t;
          });

  private final Engine engine;
  private final StorageRoot storage;

  public CatalogActivitiesImpl(StorageRoot storage) {
    this(DeltaTables.defaultEngine(), storage);
  }

  public CatalogActivitiesImpl(Engine engine, StorageRoot storage) {
    this.engine = engine;
    this.storage = storage;
  }

  /** URI of catalog table {@code name} ({@link CatalogTables#NAMES}). */
  public String tableUri(String name) {
    CatalogTables.schema(name); // known name
    return CatalogTables.uri(storage, name);
  }

  // ---- describe ----

  @Override
  public DescribeTableResult describeTable(DescribeTableRequest request) {
    return ActivityBoundary.call(
        () -> {
          if (request.getTable().isBlank()) {
            throw ApplicationFailure.newNonRetryableFailure(
                "data table is empty", INVALID_ARGUMENT);
          }
          String uri = DeltaTables.displayUri(storage.table(request.getTable().strip()));
          try {
            return describe(uri, request);
          } catch (RuntimeException e) {
            throw StorageFailures.translate(uri, e);
          }
        });
  }

  private DescribeTableResult describe(String uri, DescribeTableRequest request) {
    long t0 = System.nanoTime();
    Optional<Snapshot> latest = DeltaTables.latestSnapshot(engine, uri);
    if (latest.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "table " + uri + " does not exist — run the ETL stage first", INVALID_TABLE);
    }
    Snapshot snapshot = latest.get();
    if (request.hasVersion() && request.getVersion() != snapshot.getVersion()) {
      try {
        snapshot = DeltaTables.snapshotAt(engine, uri, request.getVersion());
      } catch (IllegalArgumentException e) {
        // "table … has no version N (latest is M)"
        throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), INVALID_TABLE);
      }
    }
    Map<String, Long> counts = SplitCounter.count(engine, snapshot);
    log.info(
        "table {} v{}: rows per split {} ({} ms)",
        uri,
        snapshot.getVersion(),
        counts,
        (System.nanoTime() - t0) / 1_000_000);
    return DescribeTableResult.newBuilder()
        .setTable(TableRef.newBuilder().setUri(uri).setVersion(snapshot.getVersion()))
        .putAllRowsPerSplit(counts)
        .setShape(TableShapes.of(snapshot))
        .build();
  }

  // ---- a finished experiment ----

  @Override
  public ExperimentRecord experimentRecord(ExperimentRecordRequest request) {
    return ActivityBoundary.call(
        () -> {
          if (request.getExperimentId().isBlank()) {
            throw ApplicationFailure.newNonRetryableFailure(
                "experiment id is empty", INVALID_ARGUMENT);
          }
          try {
            return new ExperimentRecords(engine, this::tableUri)
                .read(request.getExperimentId().strip());
          } catch (IllegalArgumentException e) {
            throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), INVALID_ARGUMENT);
          } catch (RuntimeException e) {
            throw StorageFailures.translate(tableUri(CatalogTables.EXPERIMENTS), e);
          }
        });
  }

  // ---- append ----

  @Override
  public CatalogAppendResult append(CatalogAppend batch) {
    return ActivityBoundary.call(
        () -> {
          String experimentId = batch.getExperimentId();
          if (experimentId.isBlank()) {
            throw ApplicationFailure.newNonRetryableFailure(
                "catalog append without experiment_id", INVALID_ARGUMENT);
          }
          if (batch.getSequence() < 0) {
            throw ApplicationFailure.newNonRetryableFailure(
                "catalog append of " + experimentId + ": negative sequence " + batch.getSequence(),
                INVALID_ARGUMENT);
          }
          Map<String, List<CatalogRow>> byTable = group(batch);
          String appId = TXN_APP_ID_PREFIX + experimentId;
          // The tables are independent commits (each idempotent through its own SetTransaction), so
          // they
          // go in parallel: the experiment waits for its last batch before it completes.
          Map<String, Future<Committed>> versions = new LinkedHashMap<>();
          for (Map.Entry<String, List<CatalogRow>> e : byTable.entrySet()) {
            versions.put(
                e.getKey(),
                COMMITS.submit(
                    () -> commitOrLatest(e.getKey(), e.getValue(), appId, batch.getSequence())));
          }
          CatalogAppendResult.Builder result = CatalogAppendResult.newBuilder();
          RuntimeException failure = null;
          boolean wrote = false;
          for (Map.Entry<String, Future<Committed>> e : versions.entrySet()) {
            try {
              Committed c = e.getValue().get();
              wrote |= c.wrote();
              result.putVersions(e.getKey(), c.version());
            } catch (ExecutionException ex) {
              RuntimeException cause =
                  ex.getCause() instanceof RuntimeException r
                      ? r
                      : new IllegalStateException(ex.getCause());
              if (failure == null) {
                failure = cause;
              }
            } catch (InterruptedException ex) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(
                  "interrupted while committing catalog batch " + batch.getSequence(), ex);
            }
          }
          if (failure != null) {
            throw failure; // a retry writes only the tables that do not hold the batch yet
          }
          return result.setAlreadyCommitted(!byTable.isEmpty() && !wrote).build();
        });
  }

  /**
   * The table's version after the batch, and whether this call wrote it (false: the table already
   * held it).
   */
  private record Committed(long version, boolean wrote) {}

  private Committed commitOrLatest(
      String table, List<CatalogRow> rows, String appId, long sequence) {
    String uri = tableUri(table);
    OptionalLong committed = commit(uri, table, rows, appId, sequence);
    return committed.isPresent()
        ? new Committed(committed.getAsLong(), true)
        : new Committed(DeltaTables.latestVersion(engine, uri).orElse(-1), false);
  }

  /** The committed version, or empty when the table already holds this batch. */
  private OptionalLong commit(
      String uri, String table, List<CatalogRow> rows, String appId, long sequence) {
    DeltaTableWriter writer =
        new DeltaTableWriter(
            engine, uri, CatalogTables.schema(table), CatalogTables.PROPERTIES.get(table));
    try {
      return OptionalLong.of(
          writer
              .newAppend()
              .add(CatalogTables.columns(table, rows))
              .transactionId(appId, sequence)
              .commit());
    } catch (ConcurrentTransactionException e) {
      log.info("{} already holds catalog batch {} of {}; nothing written", uri, sequence, appId);
      return OptionalLong.empty();
    } catch (IllegalArgumentException e) {
      // the table exists with other columns: retrying cannot help
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "catalog table " + uri + ": " + e.getMessage(), INVALID_TABLE, e);
    }
  }

  /**
   * Rows per table, in {@link CatalogTables#NAMES} order; every kind checked before anything is
   * written.
   */
  private static Map<String, List<CatalogRow>> group(CatalogAppend batch) {
    Map<String, List<CatalogRow>> byTable = new LinkedHashMap<>();
    CatalogTables.NAMES.forEach(n -> byTable.put(n, new ArrayList<>()));
    for (int i = 0; i < batch.getRowsCount(); i++) {
      CatalogRow row = batch.getRows(i);
      List<CatalogRow> rows = byTable.get(row.getKind());
      if (rows == null) {
        throw ApplicationFailure.newNonRetryableFailure(
            "catalog append of "
                + batch.getExperimentId()
                + ": row "
                + i
                + " has kind '"
                + row.getKind()
                + "' (one of "
                + CatalogTables.NAMES
                + ")",
            INVALID_ARGUMENT);
      }
      rows.add(
          row.getExperimentId().isEmpty()
              ? row.toBuilder().setExperimentId(batch.getExperimentId()).build()
              : row);
    }
    byTable.values().removeIf(List::isEmpty);
    return byTable;
  }
}
