package dev.keel.tables.drift;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import dev.keel.tables.catalog.CatalogTables;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code <storage root>/_keel/drift}, one Delta table with two kinds of rows:
 *
 * <ul>
 *   <li>{@code reference}: the statistics of one split of one table version ({@code key} = {@code
 *       <table uri>@v<version>/<split>}), written by the first run that needs them. Keyed by the
 *       DATA, not by the model: every trial, retrained version, champion and challenger trained on
 *       one version shares the row, and a run started without a registered model finds it too.
 *   <li>{@code report}: one inference run's drift report ({@code key} = the run id), with the
 *       columns people filter on (model_version, drifted, score) next to the whole {@link
 *       DriftRecord} as JSON.
 * </ul>
 *
 * Each row is committed with the Delta transaction id {@code keel-drift:<kind>:<key>}, so a retried
 * or concurrent write of the same row commits once.
 */
public final class DriftTable {
  public static final String TABLE = "drift";
  static final String REFERENCE = "reference";
  static final String REPORT = "report";
  private static final String TXN_PREFIX = "keel-drift:";

  static final StructType SCHEMA =
      new StructType()
          .add("kind", StringType.STRING, false)
          .add("key", StringType.STRING, false)
          .add("data_table", StringType.STRING, true)
          .add("data_version", LongType.LONG, true)
          .add("split", StringType.STRING, true)
          .add("model_version", StringType.STRING, true)
          .add("drifted", BooleanType.BOOLEAN, false)
          .add("score", DoubleType.DOUBLE, true)
          .add("time", TimestampType.TIMESTAMP, false)
          .add("json", StringType.STRING, true);

  /** Statistics for the columns before the JSON: no min/max of whole reports in every commit. */
  private static final Map<String, String> PROPERTIES =
      Map.of("delta.dataSkippingNumIndexedCols", "9");

  private final Engine engine;
  private final StorageRoot storage;
  private final Clock clock;

  public DriftTable(Engine engine, StorageRoot storage, Clock clock) {
    this.engine = engine;
    this.storage = storage;
    this.clock = clock;
  }

  public DriftTable(StorageRoot storage) {
    this(DeltaTables.defaultEngine(), storage, Clock.systemUTC());
  }

  public String tableUri() {
    return DeltaTables.displayUri(storage.resolve(CatalogTables.DIRECTORY + "/" + TABLE));
  }

  static String referenceKey(TableRef table, String split) {
    return DeltaTables.displayUri(table.getUri()) + "@v" + table.getVersion() + "/" + split;
  }

  /** The recorded statistics of a split, if a run computed them before. */
  public Optional<InputStatistics> reference(TableRef table, String split) {
    String key = referenceKey(table, split);
    return rows().stream()
        .filter(r -> REFERENCE.equals(r.get("kind")) && key.equals(r.get("key")))
        .findFirst()
        .<InputStatistics>map(
            r -> parse((String) r.get("json"), InputStatistics.newBuilder()).build());
  }

  /** Records a split's statistics; a second record of the same split writes nothing. */
  public void recordReference(TableRef table, String split, InputStatistics statistics) {
    String key = referenceKey(table, split);
    Columns c =
        row(
            REFERENCE,
            key,
            DeltaTables.displayUri(table.getUri()),
            table.getVersion(),
            split,
            null,
            false,
            null,
            clock.millis(),
            json(statistics));
    commit(REFERENCE, key, c);
  }

  /** Records a run's drift report; recording the same run again writes nothing. */
  public void record(DriftRecord record) {
    if (record.getRunId().isBlank()) {
      throw new IllegalArgumentException("run_id: required");
    }
    Columns c =
        row(
            REPORT,
            record.getRunId(),
            DeltaTables.displayUri(record.getData().getUri()),
            record.getData().getVersion(),
            record.getSplit(),
            record.getModelVersion(),
            record.getReport().getDrifted(),
            record.getReport().getScore(),
            record.getTimeMillis() > 0 ? record.getTimeMillis() : clock.millis(),
            json(record));
    commit(REPORT, record.getRunId(), c);
  }

  /** Every recorded drift report, oldest first; empty before the first. */
  public List<DriftRecord> reports() {
    return rows().stream()
        .filter(r -> REPORT.equals(r.get("kind")))
        .<DriftRecord>map(r -> parse((String) r.get("json"), DriftRecord.newBuilder()).build())
        .sorted(
            Comparator.comparingLong(DriftRecord::getTimeMillis)
                .thenComparing(DriftRecord::getRunId))
        .toList();
  }

  /** The reports of one model version ({@code name/version}), oldest first. */
  public List<DriftRecord> reports(String modelVersion) {
    return reports().stream().filter(r -> r.getModelVersion().equals(modelVersion)).toList();
  }

  private void commit(String kind, String key, Columns row) {
    DeltaTableWriter writer =
        new DeltaTableWriter(
            engine, storage.resolve(CatalogTables.DIRECTORY + "/" + TABLE), SCHEMA, PROPERTIES);
    try {
      writer.newAppend().add(row).transactionId(TXN_PREFIX + kind + ":" + key, 1).commit();
    } catch (ConcurrentTransactionException alreadyThere) {
      // a retry, or another run recording the same split: the row is in the table once
    }
  }

  private static Columns row(
      String kind,
      String key,
      String table,
      long version,
      String split,
      String model,
      boolean drifted,
      Double score,
      long timeMillis,
      String json) {
    return Columns.of(1)
        .add("kind", new String[] {kind})
        .add("key", new String[] {key})
        .add("data_table", new String[] {table})
        .add("data_version", new long[] {version})
        .add("split", new String[] {split})
        .add("model_version", new String[] {model == null || model.isEmpty() ? null : model})
        .add("drifted", new boolean[] {drifted})
        .add("score", new Double[] {score})
        .add("time", new long[] {Math.multiplyExact(timeMillis, 1000L)})
        .add("json", new String[] {json});
  }

  private List<Map<String, Object>> rows() {
    return DeltaTables.latestSnapshot(
            engine, storage.resolve(CatalogTables.DIRECTORY + "/" + TABLE))
        .map(s -> TableRows.read(engine, s))
        .orElse(List.of());
  }

  private static String json(Message m) {
    try {
      return JsonFormat.printer().omittingInsignificantWhitespace().print(m);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The builder {@code b} with the row's JSON merged into it. */
  private static <B extends Message.Builder> B parse(String json, B b) {
    try {
      JsonFormat.parser().ignoringUnknownFields().merge(json, b);
      return b;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("unreadable row in _keel/drift: " + e.getMessage(), e);
    }
  }
}
