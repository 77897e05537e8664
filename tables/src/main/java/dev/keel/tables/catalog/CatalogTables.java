package dev.keel.tables.catalog;

import dev.keel.api.v1.CatalogRow;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTables;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The four catalog tables under {@code <storage root>/_keel/}: their schemas, and how {@link
 * CatalogRow}s of each kind become typed columns. Empty strings are written as NULL; {@code time}
 * is a UTC timestamp (microseconds) from {@code time_millis}.
 *
 * <ul>
 *   <li>{@code experiments}: experiment_id, name, state, data_table, data_version, time,
 *       config_json
 *   <li>{@code trials}: experiment_id, trial_id, state, error, length, source_checkpoint, time,
 *       hparams_json
 *   <li>{@code metrics}: experiment_id, trial_id, name, value, length, batches, checkpoint_uuid,
 *       time
 *   <li>{@code checkpoints}: experiment_id, trial_id, uuid, state (SAVED | DELETED), uri,
 *       size_bytes, batches, length, metric, time; {@code length} and {@code metric} are NULL on
 *       DELETED rows (they live on the SAVED row of the same uuid) and on checkpoints saved between
 *       validations ({@code min_checkpoint_period}), which have no searcher metric
 * </ul>
 */
public final class CatalogTables {
  /** Directory of the catalog tables under the storage root. */
  public static final String DIRECTORY = "_keel";

  public static final String EXPERIMENTS = "experiments";
  public static final String TRIALS = "trials";
  public static final String METRICS = "metrics";
  public static final String CHECKPOINTS = "checkpoints";

  /** Table names in commit order. */
  public static final List<String> NAMES = List.of(EXPERIMENTS, TRIALS, METRICS, CHECKPOINTS);

  /** The URI of catalog table {@code name} under {@code storage}. */
  static String uri(StorageRoot storage, String name) {
    return DeltaTables.displayUri(storage.resolve(DIRECTORY + "/" + name));
  }

  public static final StructType EXPERIMENTS_SCHEMA =
      new StructType()
          .add("experiment_id", StringType.STRING, false)
          .add("name", StringType.STRING, true)
          .add("state", StringType.STRING, true)
          .add("data_table", StringType.STRING, true)
          .add("data_version", LongType.LONG, true)
          .add("time", TimestampType.TIMESTAMP, false)
          .add("config_json", StringType.STRING, true);

  public static final StructType TRIALS_SCHEMA =
      new StructType()
          .add("experiment_id", StringType.STRING, false)
          .add("trial_id", LongType.LONG, false)
          .add("state", StringType.STRING, true)
          .add("error", StringType.STRING, true)
          .add("length", LongType.LONG, false)
          .add("source_checkpoint", StringType.STRING, true)
          .add("time", TimestampType.TIMESTAMP, false)
          .add("hparams_json", StringType.STRING, true);

  public static final StructType METRICS_SCHEMA =
      new StructType()
          .add("experiment_id", StringType.STRING, false)
          .add("trial_id", LongType.LONG, false)
          .add("name", StringType.STRING, false)
          .add("value", DoubleType.DOUBLE, false)
          .add("length", LongType.LONG, false)
          .add("batches", LongType.LONG, false)
          .add("checkpoint_uuid", StringType.STRING, true)
          .add("time", TimestampType.TIMESTAMP, false);

  public static final StructType CHECKPOINTS_SCHEMA =
      new StructType()
          .add("experiment_id", StringType.STRING, false)
          .add("trial_id", LongType.LONG, false)
          .add("uuid", StringType.STRING, false)
          .add("state", StringType.STRING, true)
          .add("uri", StringType.STRING, true)
          .add("size_bytes", LongType.LONG, false)
          .add("batches", LongType.LONG, false)
          .add("length", LongType.LONG, true)
          .add("metric", DoubleType.DOUBLE, true)
          .add("time", TimestampType.TIMESTAMP, false);

  /** State of a checkpoint row whose checkpoint was garbage-collected. */
  public static final String DELETED = "DELETED";

  /**
   * Name of a SAVED checkpoint row written between validations: it has no length or searcher
   * metric.
   */
  public static final String PERIODIC = "periodic";

  private static final Map<String, StructType> SCHEMAS =
      Map.of(
          EXPERIMENTS,
          EXPERIMENTS_SCHEMA,
          TRIALS,
          TRIALS_SCHEMA,
          METRICS,
          METRICS_SCHEMA,
          CHECKPOINTS,
          CHECKPOINTS_SCHEMA);

  /**
   * Statistics only for the columns before the JSON ones: data skipping on experiment_id, state,
   * time, … but no min/max of whole configs in every commit.
   */
  static final Map<String, Map<String, String>> PROPERTIES =
      Map.of(
          EXPERIMENTS, Map.of("delta.dataSkippingNumIndexedCols", "6"),
          TRIALS, Map.of("delta.dataSkippingNumIndexedCols", "7"),
          METRICS, Map.of(),
          CHECKPOINTS, Map.of());

  private CatalogTables() {}

  public static StructType schema(String table) {
    StructType s = SCHEMAS.get(table);
    if (s == null) {
      throw new IllegalArgumentException(
          "unknown catalog table '" + table + "' (one of " + NAMES + ")");
    }
    return s;
  }

  /** The rows of one kind as columns of its table. */
  static Columns columns(String table, List<CatalogRow> rows) {
    Columns c =
        Columns.of(rows.size()).add("experiment_id", strings(rows, CatalogRow::getExperimentId));
    long[] time = new long[rows.size()];
    for (int i = 0; i < time.length; i++) {
      time[i] = Math.multiplyExact(rows.get(i).getTimeMillis(), 1000L);
    }
    switch (table) {
      case EXPERIMENTS -> {
        Long[] version = new Long[rows.size()];
        for (int i = 0; i < version.length; i++) {
          version[i] = rows.get(i).getUri().isEmpty() ? null : rows.get(i).getLength();
        }
        c.add("name", strings(rows, CatalogRow::getName))
            .add("state", strings(rows, CatalogRow::getState))
            .add("data_table", strings(rows, CatalogRow::getUri))
            .add("data_version", version)
            .add("config_json", strings(rows, CatalogRow::getJson));
      }
      case TRIALS ->
          c.add("trial_id", longs(rows, CatalogRow::getTrialId))
              .add("state", strings(rows, CatalogRow::getState))
              .add("error", strings(rows, CatalogRow::getName))
              .add("length", longs(rows, CatalogRow::getLength))
              .add("source_checkpoint", strings(rows, CatalogRow::getCheckpointUuid))
              .add("hparams_json", strings(rows, CatalogRow::getJson));
      case METRICS -> {
        double[] value = new double[rows.size()];
        for (int i = 0; i < value.length; i++) {
          value[i] = rows.get(i).getValue();
        }
        c.add("trial_id", longs(rows, CatalogRow::getTrialId))
            .add("name", nonNull(strings(rows, CatalogRow::getName), ""))
            .add("value", value)
            .add("length", longs(rows, CatalogRow::getLength))
            .add("batches", longs(rows, CatalogRow::getBatches))
            .add("checkpoint_uuid", strings(rows, CatalogRow::getCheckpointUuid));
      }
      case CHECKPOINTS -> {
        Long[] length = new Long[rows.size()];
        Double[] metric = new Double[rows.size()];
        for (int i = 0; i < length.length; i++) {
          CatalogRow r = rows.get(i);
          // deleted rows and checkpoints saved between validations have no length or searcher
          // metric
          boolean unmeasured = DELETED.equals(r.getState()) || PERIODIC.equals(r.getName());
          length[i] = unmeasured ? null : r.getLength();
          metric[i] = unmeasured ? null : r.getValue();
        }
        c.add("trial_id", longs(rows, CatalogRow::getTrialId))
            .add("uuid", nonNull(strings(rows, CatalogRow::getCheckpointUuid), ""))
            .add("state", strings(rows, CatalogRow::getState))
            .add("uri", strings(rows, CatalogRow::getUri))
            .add("size_bytes", longs(rows, CatalogRow::getSizeBytes))
            .add("batches", longs(rows, CatalogRow::getBatches))
            .add("length", length)
            .add("metric", metric);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown catalog table '" + table + "' (one of " + NAMES + ")");
    }
    return c.add("time", time);
  }

  /** Empty strings become NULL. */
  private static String[] strings(List<CatalogRow> rows, Function<CatalogRow, String> f) {
    String[] out = new String[rows.size()];
    for (int i = 0; i < out.length; i++) {
      String s = f.apply(rows.get(i));
      out[i] = s.isEmpty() ? null : s;
    }
    return out;
  }

  private static String[] nonNull(String[] values, String fallback) {
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        values[i] = fallback;
      }
    }
    return values;
  }

  private static long[] longs(List<CatalogRow> rows, ToLongFunction<CatalogRow> f) {
    long[] out = new long[rows.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = f.applyAsLong(rows.get(i));
    }
    return out;
  }
}
