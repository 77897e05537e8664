package dev.keel.tables;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.storage.S3Settings;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StoreGuarantees;
import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionBuilder;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends rows to a Delta table, creating it on the first commit. Every {@link #append} is ONE
 * atomic Delta commit: Parquet files are written first, then a single log entry adds them all, so a
 * crash in between leaves no new version (only unreferenced files).
 *
 * <pre>{@code
 * StructType schema = TableSchemas.PREDICTIONS;
 * long version = new DeltaTableWriter(uri, schema)
 *     .append(Columns.of(n).add("id", ids).add("predicted_label", labels).add("score", scores)
 *         .add("checkpoint_id", ckpts).add("source_table_version", versions));
 * }</pre>
 *
 * <p>Unless the table properties say otherwise, statistics are collected only for the columns
 * before the first binary column ({@code delta.dataSkippingNumIndexedCols}), so put big binary
 * columns last. Parquet is Snappy-compressed (see {@link DeltaTables#newEngine}). Post-commit hooks
 * (checkpoints, checksums) returned by Kernel are run before {@code append} returns.
 */
public final class DeltaTableWriter {
  private static final Logger log = LoggerFactory.getLogger(DeltaTableWriter.class);

  /** Rows per Kernel batch handed to the Parquet writer. */
  static final int BATCH_ROWS = 8192;

  private final Engine engine;
  private final String tableUri;
  private final StructType schema;
  private final Map<String, String> tableProperties;

  public DeltaTableWriter(String tableUri, StructType schema) {
    this(DeltaTables.defaultEngine(), tableUri, schema, Map.of());
  }

  public DeltaTableWriter(String tableUri, StructType schema, Map<String, String> tableProperties) {
    this(DeltaTables.defaultEngine(), tableUri, schema, tableProperties);
  }

  /**
   * @param schema the table's schema; used to create the table, checked against an existing one
   * @param tableProperties used only when the table is created
   */
  public DeltaTableWriter(
      Engine engine, String tableUri, StructType schema, Map<String, String> tableProperties) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
    this.schema = Objects.requireNonNull(schema, "schema");
    Map<String, String> props = new LinkedHashMap<>(tableProperties);
    if (!props.containsKey("delta.dataSkippingNumIndexedCols")) {
      int firstBinary = firstBinaryColumn(schema);
      if (firstBinary >= 0) {
        props.put("delta.dataSkippingNumIndexedCols", Integer.toString(firstBinary));
      }
    }
    this.tableProperties = Collections.unmodifiableMap(props);
  }

  public String tableUri() {
    return tableUri;
  }

  public StructType schema() {
    return schema;
  }

  /** Table properties applied when the table is created. */
  public Map<String, String> tableProperties() {
    return tableProperties;
  }

  /** Appends all groups in one commit and returns the committed version. */
  public long append(Columns... groups) {
    Append a = newAppend();
    for (Columns g : groups) {
      a.add(g);
    }
    return a.commit();
  }

  /** An append with options (transaction id for idempotency, several file groups). */
  public Append newAppend() {
    return new Append();
  }

  /** One pending commit. Each {@link #add}ed group goes to its own Parquet file(s). */
  public final class Append {
    private final List<Columns> groups = new ArrayList<>();
    private final List<DataFileStatus> staged = new ArrayList<>();
    private String appId;
    private long txnVersion;
    private Runnable beforeCommit = () -> {};

    private Append() {}

    public Append add(Columns group) {
      groups.add(Objects.requireNonNull(group, "group"));
      return this;
    }

    /**
     * Adds Parquet files written earlier by {@link #stageFiles} (possibly by another process) to
     * this commit. They must lie under the table's directory.
     */
    public Append addFiles(List<DataFileStatus> files) {
      staged.addAll(files);
      return this;
    }

    /**
     * Records a Delta SetTransaction ({@code txn} action) with this commit. Kernel refuses the
     * commit with {@link ConcurrentTransactionException} when the table already holds {@code appId}
     * at a version &ge; {@code version}: read it back with {@link
     * Snapshot#getLatestTransactionVersion}.
     */
    public Append transactionId(String appId, long version) {
      this.appId = Objects.requireNonNull(appId, "appId");
      this.txnVersion = version;
      return this;
    }

    /**
     * The commit replaces the table's rows instead of adding to them (a new version; history
     * stays).
     */
    public Append replaceContents() {
      this.replaceContents = true;
      return this;
    }

    /**
     * Table properties set by this very commit (on top of the writer's creation properties), so
     * that each version can say what wrote it: time travel to the version reads them back with
     * {@link Snapshot#getTableProperties()}.
     */
    public Append commitProperties(Map<String, String> properties) {
      this.commitProperties = Map.copyOf(properties);
      return this;
    }

    /** Runs after the data files are written and before the commit (fault injection in tests). */
    public Append beforeCommit(Runnable hook) {
      this.beforeCommit = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * Writes the data files and commits them as one version.
     *
     * @return the committed table version
     * @throws ConcurrentTransactionException when the transaction id was already committed
     * @throws KeelFailure non-retryable ({@value FailureTypes#STORAGE_UNUSABLE}) when the storage
     *     refuses access or does not exist
     */
    public long commit() {
      try {
        engineInfo = checkedEngineInfo(tableUri);
        return commitWithCreateRetry();
      } catch (RuntimeException e) {
        // access denied, no credentials, no bucket: one non-retryable line naming the table
        throw StorageFailures.translate(DeltaTables.displayUri(tableUri), e);
      }
    }

    private long commitWithCreateRetry() {
      try {
        return commitOnce(false);
      } catch (ConcurrentWriteException e) {
        // Kernel does not rebase a CREATE TABLE: a writer that lost the race to create the table
        // gets ProtocolChangedException. Retry once as an append (a repeated transaction id then
        // fails with ConcurrentTransactionException, as it should).
        if (!(e instanceof ConcurrentTransactionException)
            && createAttempted
            && DeltaTables.latestVersion(engine, tableUri).isPresent()) {
          log.info(
              "table {} was created concurrently ({}); retrying as an append",
              tableUri,
              e.getClass().getSimpleName());
          return commitOnce(true);
        }
        throw e;
      }
    }

    private boolean createAttempted;
    private String engineInfo = DeltaTables.ENGINE_INFO;
    private boolean replaceContents;
    private Map<String, String> commitProperties = Map.of();

    private Map<String, String> creationProperties() {
      Map<String, String> all = new LinkedHashMap<>(tableProperties);
      all.putAll(commitProperties);
      return all;
    }

    private long commitOnce(boolean mustExist) {
      long t0 = System.nanoTime();
      String path = DeltaTables.tablePath(tableUri);
      Optional<Snapshot> snapshot = DeltaTables.latestSnapshot(engine, tableUri);
      Transaction txn;
      if (snapshot.isPresent() && replaceContents) {
        checkSchema(snapshot.get().getSchema());
        // REPLACE TABLE: one commit removes every current file and adds the new ones; older
        // versions stay readable by time travel.
        TransactionBuilder b =
            KernelInternals.replaceTable(engine, path, engineInfo)
                .withSchema(engine, schema)
                .withTableProperties(engine, creationProperties());
        if (appId != null) {
          b = b.withTransactionId(engine, appId, txnVersion);
        }
        txn = b.build(engine);
      } else if (snapshot.isPresent()) {
        checkSchema(snapshot.get().getSchema());
        UpdateTableTransactionBuilder b =
            snapshot.get().buildUpdateTableTransaction(engineInfo, Operation.WRITE);
        if (!commitProperties.isEmpty()) {
          b = b.withTablePropertiesAdded(commitProperties);
        }
        if (appId != null) {
          b = b.withTransactionId(appId, txnVersion);
        }
        txn = b.build(engine);
      } else {
        if (mustExist) {
          throw new IllegalStateException("table " + tableUri + " disappeared");
        }
        createAttempted = true;
        // TableManager.buildCreateTableTransaction (4.x) has no withTransactionId; the Table API
        // builder does, so creation goes through it to keep create+data+txn in one commit.
        TransactionBuilder b =
            Table.forPath(engine, path)
                .createTransactionBuilder(engine, engineInfo, Operation.CREATE_TABLE)
                .withSchema(engine, schema)
                .withTableProperties(engine, creationProperties());
        if (appId != null) {
          b = b.withTransactionId(engine, appId, txnVersion);
        }
        txn = b.build(engine);
      }
      StructType tableSchema = txn.getSchema(engine);
      Row state = txn.getTransactionState(engine);
      List<Row> actions = new ArrayList<>();
      long rows = 0;
      for (Columns g : groups) {
        if (g.rows() == 0) {
          continue;
        }
        rows += g.rows();
        actions.addAll(writeGroup(state, tableSchema, g));
      }
      if (!staged.isEmpty()) {
        DataWriteContext ctx = Transaction.getWriteContext(engine, state, Map.of());
        try (CloseableIterator<Row> acts =
            Transaction.generateAppendActions(
                engine, state, KernelInternals.closeable(staged.iterator()), ctx)) {
          while (acts.hasNext()) {
            actions.add(acts.next());
          }
        } catch (IOException e) {
          throw new UncheckedIOException("adding staged files to " + tableUri, e);
        }
        for (DataFileStatus f : staged) {
          rows += f.getStatistics().map(DataFileStatistics::getNumRecords).orElse(0L);
        }
      }
      long t1 = System.nanoTime();
      beforeCommit.run();
      TransactionCommitResult result = txn.commit(engine, inMemory(actions));
      long version = result.getVersion();
      runHooks(result);
      log.info(
          "committed {} rows in {} file(s) to {} as version {} (write {} ms, commit+hooks {} ms)",
          rows,
          actions.size(),
          tableUri,
          version,
          (t1 - t0) / 1_000_000,
          (System.nanoTime() - t1) / 1_000_000);
      return version;
    }

    private List<Row> writeGroup(Row state, StructType tableSchema, Columns g) {
      Object[] arrays = ArrayBatch.bind(tableSchema, g);
      int n = g.rows();
      CloseableIterator<FilteredColumnarBatch> logical =
          new CloseableIterator<>() {
            int next = 0;

            @Override
            public boolean hasNext() {
              return next < n;
            }

            @Override
            public FilteredColumnarBatch next() {
              if (next >= n) {
                throw new NoSuchElementException();
              }
              int size = Math.min(BATCH_ROWS, n - next);
              ArrayBatch b = ArrayBatch.slice(tableSchema, arrays, next, size);
              next += size;
              return new FilteredColumnarBatch(b, Optional.empty());
            }

            @Override
            public void close() {}
          };
      List<Row> out = new ArrayList<>();
      DataWriteContext ctx = Transaction.getWriteContext(engine, state, Map.of());
      try (CloseableIterator<FilteredColumnarBatch> physical =
              Transaction.transformLogicalData(engine, state, logical, Map.of());
          CloseableIterator<DataFileStatus> files =
              engine
                  .getParquetHandler()
                  .writeParquetFiles(
                      ctx.getTargetDirectory(), physical, ctx.getStatisticsColumns());
          CloseableIterator<Row> acts =
              Transaction.generateAppendActions(engine, state, files, ctx)) {
        while (acts.hasNext()) {
          out.add(acts.next());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("writing data files of " + tableUri, e);
      }
      return out;
    }
  }

  /**
   * Writes {@code rows} as Parquet file(s) under {@code directoryUri} (inside the table's
   * directory) without committing them: a later {@link Append#addFiles} makes them part of a
   * version. Files never committed stay invisible to every Delta reader. The table need not exist
   * yet; its schema is this writer's (Keel's tables use neither partition columns nor column
   * mapping, so the physical rows are the logical ones).
   *
   * @return the files with their statistics (all columns before the first binary one)
   */
  public List<DataFileStatus> stageFiles(String directoryUri, Columns rows) {
    Object[] arrays = ArrayBatch.bind(schema, rows);
    int n = rows.rows();
    List<FilteredColumnarBatch> batches = new ArrayList<>();
    for (int from = 0; from < n; from += BATCH_ROWS) {
      batches.add(
          new FilteredColumnarBatch(
              ArrayBatch.slice(schema, arrays, from, Math.min(BATCH_ROWS, n - from)),
              Optional.empty()));
    }
    int indexed = firstBinaryColumn(schema) < 0 ? schema.length() : firstBinaryColumn(schema);
    List<Column> statsColumns = new ArrayList<>();
    for (int i = 0; i < indexed; i++) {
      statsColumns.add(new Column(schema.at(i).getName()));
    }
    List<DataFileStatus> out = new ArrayList<>();
    try {
      checkedEngineInfo(
          tableUri); // staged files are committed later: refuse an unsafe store before writing them
    } catch (RuntimeException e) {
      throw StorageFailures.translate(DeltaTables.displayUri(tableUri), e);
    }
    try (CloseableIterator<DataFileStatus> files =
        engine
            .getParquetHandler()
            .writeParquetFiles(
                DeltaTables.tablePath(directoryUri),
                KernelInternals.closeable(batches.iterator()),
                statsColumns)) {
      while (files.hasNext()) {
        out.add(files.next());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing staged files under " + directoryUri, e);
    } catch (RuntimeException e) {
      throw StorageFailures.translate(DeltaTables.displayUri(directoryUri), e);
    }
    return out;
  }

  /**
   * The engine info a commit to {@code tableUri} records, after making sure that the store keeps
   * concurrent commits apart (before any data file is written): {@link DeltaTables#ENGINE_INFO}, or
   * {@link DeltaTables#SINGLE_WRITER_ENGINE_INFO} on a store without conditional PUT in the
   * single-writer mode the user chose.
   *
   * @throws StoreGuarantees.UnsafeStoreException on such a store without that mode
   */
  private static String checkedEngineInfo(String tableUri) {
    if (!S3Uri.isS3(tableUri)) {
      return DeltaTables.ENGINE_INFO;
    }
    boolean singleWriter =
        StoreGuarantees.requireSafeCommits(S3Settings.fromEnvironment(), S3Uri.parse(tableUri));
    return singleWriter ? DeltaTables.SINGLE_WRITER_ENGINE_INFO : DeltaTables.ENGINE_INFO;
  }

  private void runHooks(TransactionCommitResult result) {
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      try {
        hook.threadSafeInvoke(engine);
        log.debug(
            "ran post-commit hook {} on {} v{}", hook.getType(), tableUri, result.getVersion());
      } catch (IOException | RuntimeException e) {
        // The commit is durable; a missing checkpoint only slows readers down.
        log.warn(
            "post-commit hook {} failed on {} v{}: {}",
            hook.getType(),
            tableUri,
            result.getVersion(),
            e.toString());
      }
    }
  }

  private void checkSchema(StructType existing) {
    if (!existing.fieldNames().equals(schema.fieldNames())) {
      throw new IllegalArgumentException(
          "table "
              + tableUri
              + " has columns "
              + existing.fieldNames()
              + ", not "
              + schema.fieldNames());
    }
    for (int i = 0; i < existing.length(); i++) {
      if (!existing.at(i).getDataType().equivalent(schema.at(i).getDataType())) {
        throw new IllegalArgumentException(
            "table "
                + tableUri
                + ": column "
                + existing.at(i).getName()
                + " is "
                + existing.at(i).getDataType()
                + ", not "
                + schema.at(i).getDataType());
      }
    }
  }

  private static int firstBinaryColumn(StructType schema) {
    List<StructField> fields = schema.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getDataType() instanceof BinaryType) {
        return i;
      }
    }
    return -1;
  }

  private static CloseableIterable<Row> inMemory(List<Row> rows) {
    return new CloseableIterable<>() {
      @Override
      public CloseableIterator<Row> iterator() {
        return KernelInternals.closeable(rows.iterator());
      }

      @Override
      public void close() {}
    };
  }
}
