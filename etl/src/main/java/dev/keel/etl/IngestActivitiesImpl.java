package dev.keel.etl;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.HeartbeatTicker;
import dev.keel.activities.KeelFailure;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.api.config.EnumNames;
import dev.keel.api.config.SourceEncoding;
import dev.keel.api.config.SourceFormat;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.Task;
import dev.keel.etl.fashionmnist.IdxReader;
import dev.keel.etl.images.ImageFolderReader;
import dev.keel.etl.source.SourceFiles;
import dev.keel.etl.tabular.CsvSource;
import dev.keel.etl.tabular.LabelClasses;
import dev.keel.etl.tabular.LabelColumns;
import dev.keel.etl.tabular.MultilabelTargets;
import dev.keel.etl.tabular.ParquetSource;
import dev.keel.etl.tabular.TabularReader;
import dev.keel.etl.tabular.TabularRows;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.SplitCounter;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingests a data source into a new version of a Delta table: {@code fashion_mnist} and {@code
 * image_folder} into {@link TableSchemas#LABELED_IMAGES}, {@code csv} and {@code parquet} into
 * {@link TableSchemas#LABELED_FEATURES}; {@code mode} append (default) or overwrite (the new
 * version holds only this source's rows; older versions stay readable).
 *
 * <p>Every record is read before anything is written, then data files, then ONE commit: a corrupt
 * record under {@code on_bad_record: fail}, or a crash, leaves no new version. Ids are row numbers:
 * {@code 0..n-1} in a new or overwritten table, continuing after the table's rows on append.
 *
 * <p>Each version records the ingest that wrote it in table properties ({@value #INGEST_PREFIX}*:
 * format, source, checksum, mode, idempotency key and the result), read back by {@code keel data
 * describe}. Idempotent under retries: when the latest version was written by an ingest with the
 * same key (format, source checksum, mode and options), nothing is written and the result says
 * {@code already_ingested}; {@code source.label_limits} ({@link LabelLimits}) keeps only the first
 * N train rows of a class; the commit also carries a Delta {@code txn} with that key, so two racing
 * attempts cannot both commit.
 */
public final class IngestActivitiesImpl implements IngestActivities {
  private static final Logger log = LoggerFactory.getLogger(IngestActivitiesImpl.class);

  public static final String DEFAULT_FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist";

  /** Prefix of the Delta SetTransaction appId recording an ingest's key. */
  public static final String TXN_APP_ID_PREFIX = "keel-ingest:";

  /** Table properties written by every ingest commit. */
  public static final String INGEST_PREFIX = "keel.ingest.";

  public static final String INGEST_FORMAT = INGEST_PREFIX + "format";
  public static final String INGEST_SOURCE = INGEST_PREFIX + "source";
  public static final String INGEST_CHECKSUM = INGEST_PREFIX + "checksum";
  public static final String INGEST_MODE = INGEST_PREFIX + "mode";
  public static final String INGEST_KEY = INGEST_PREFIX + "key";

  /** The IngestResult of the commit (protobuf JSON, without the table reference). */
  public static final String INGEST_RESULT = INGEST_PREFIX + "result";

  /** The four IDX files of a Fashion-MNIST directory. */
  public static final List<String> FASHION_MNIST_FILES =
      List.of(
          "train-images-idx3-ubyte.gz",
          "train-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz");

  /** Fashion-MNIST's class names, label i being the i-th. */
  public static final List<String> FASHION_MNIST_CLASSES =
      List.of(
          "T-shirt/top",
          "Trouser",
          "Pullover",
          "Dress",
          "Coat",
          "Sandal",
          "Shirt",
          "Sneaker",
          "Bag",
          "Ankle boot");

  private final Engine engine;
  private final Runnable beforeCommit;
  private final StorageRoot storage; // null: requests carry full table URIs

  public IngestActivitiesImpl() {
    this(DeltaTables.defaultEngine(), null, () -> {});
  }

  /** Table names in requests resolve to {@code tables/<name>} under {@code storage}. */
  public IngestActivitiesImpl(StorageRoot storage) {
    this(DeltaTables.defaultEngine(), storage, () -> {});
  }

  public IngestActivitiesImpl(Engine engine) {
    this(engine, null, () -> {});
  }

  /**
   * Test hook: {@code beforeCommit} runs after the Parquet files are written, before the commit.
   */
  IngestActivitiesImpl(Engine engine, Runnable beforeCommit) {
    this(engine, null, beforeCommit);
  }

  private IngestActivitiesImpl(Engine engine, StorageRoot storage, Runnable beforeCommit) {
    this.engine = engine;
    this.storage = storage;
    this.beforeCommit = beforeCommit;
  }

  @Override
  public IngestResult ingest(IngestRequest request) {
    return ActivityBoundary.call(
        () -> {
          DataSource source = request.getSource();
          if (SourceFormat.of(source.getFormat()).isEmpty()) {
            throw ApplicationFailure.newNonRetryableFailure(
                (source.getFormat() == DataSource.Format.FORMAT_UNSPECIFIED
                        ? "source.format is not set"
                        : "unknown source.format " + source.getFormatValue())
                    + " (supported: "
                    + SourceFormat.expected().replace("|", ", ")
                    + ")",
                FailureTypes.UNKNOWN_FORMAT);
          }
          if (request.getTableUri().isBlank()) {
            throw ApplicationFailure.newNonRetryableFailure(
                "table_uri is empty", FailureTypes.INVALID_ARGUMENT);
          }
          IngestMode mode = mode(source);
          String table =
              storage == null ? request.getTableUri() : storage.table(request.getTableUri());
          // a long decode or write cannot heartbeat by itself: the ticker lets the server notice a
          // killed
          // worker
          try (HeartbeatTicker alive = HeartbeatTicker.start()) {
            return ingest(source, mode, table);
          } catch (RuntimeException e) {
            throw StorageFailures.translate(table, e);
          }
        });
  }

  private IngestResult ingest(DataSource source, IngestMode mode, String tableUri) {
    long t0 = System.nanoTime();
    String given =
        source.getUri().isBlank() && format(source) == SourceFormat.FASHION_MNIST
            ? DEFAULT_FASHION_MNIST_DIR
            : source.getUri();
    try (SourceFiles files = openSource(given)) {
      String checksum =
          format(source) == SourceFormat.FASHION_MNIST ? fashionChecksum(files) : files.checksum();
      String key = key(source, mode, checksum);
      log.info(
          "ingest {} from {} (sha256 {}, {}) into {}",
          source.getFormat(),
          given,
          checksum,
          mode,
          tableUri);
      Optional<Snapshot> before = DeltaTables.latestSnapshot(engine, tableUri);
      Optional<IngestResult> done = alreadyIngested(before, tableUri, key);
      if (done.isPresent()) {
        return done.get();
      }
      BadRecords bad = new BadRecords(source.getOnBadRecord(), given);
      Decoded data =
          LabelLimits.apply(decode(source, files, before, mode, bad), source.getLabelLimitsMap());
      if (data.rows() == 0) {
        throw ApplicationFailure.newNonRetryableFailure(
            "source "
                + given
                + " has no usable records"
                + (bad.count() > 0
                    ? " ("
                        + bad.count()
                        + " skipped as corrupt, e.g. "
                        + bad.examples().get(0)
                        + ")"
                    : ""),
            FailureTypes.DATASET_CORRUPT);
      }
      log.info(
          "decoded {} records of {} ({} skipped) in {} ms",
          data.rows(),
          given,
          bad.count(),
          (System.nanoTime() - t0) / 1_000_000);
      boolean append = mode == IngestMode.append && before.isPresent();
      if (append) {
        data = compatibleWith(before.get(), data, tableUri);
      }
      SplitLabelCounts ingested = SplitLabelCounts.of(data);
      // the warnings are about the version written: on append, the table's rows too
      SplitLabelCounts existing = append ? existingRows(before.get()) : null;
      SplitLabelCounts written = existing == null ? ingested : existing.plus(ingested);
      List<String> warnings = written.warnings();
      warnings.forEach(w -> log.warn("ingest of {} into {}: {}", given, tableUri, w));
      IngestResult.Builder result =
          IngestResult.newBuilder()
              .setRows(data.rows())
              .putAllRowsPerSplit(data.rowsPerSplit())
              .putAllRowsPerLabel(data.rowsPerLabel())
              .putAllRowsPerSplitLabel(ingested.proto())
              .addAllWarnings(warnings)
              .setSourceChecksum(checksum)
              .setSkippedRecords(bad.count())
              .addAllSkippedExamples(bad.examples())
              .putAllLabelLimits(source.getLabelLimitsMap())
              .setMode(mode);
      Map<String, String> record = new LinkedHashMap<>();
      record.put(INGEST_FORMAT, source.getFormat().name());
      record.put(INGEST_SOURCE, given);
      record.put(INGEST_CHECKSUM, checksum);
      record.put(INGEST_MODE, mode.name());
      record.put(INGEST_KEY, key);
      record.put(INGEST_RESULT, json(result.build()));
      long firstId = !append ? 0 : existing != null ? existing.rows() : rowCount(before.get());
      Map<String, String> props = new HashMap<>(data.dataProperties());
      if (source.getNormalize() && !(append && normalized(before.get()))) {
        // an append keeps the statistics its table's models were trained with
        props.putAll(data.trainingNormalization().properties());
      }
      props.put("delta.dataSkippingNumIndexedCols", "3");
      DeltaTableWriter.Append commit =
          new DeltaTableWriter(engine, tableUri, data.schema(), props).newAppend();
      data.groups(firstId).forEach(commit::add);
      commit
          .commitProperties(record)
          .transactionId(TXN_APP_ID_PREFIX + key, before.map(s -> s.getVersion() + 1).orElse(0L))
          .beforeCommit(beforeCommit);
      if (mode == IngestMode.overwrite) {
        commit.replaceContents();
      }
      long version;
      try {
        version = commit.commit();
      } catch (ConcurrentWriteException e) {
        log.info("another writer committed to {} first: {}", tableUri, e.toString());
        return alreadyIngested(DeltaTables.latestSnapshot(engine, tableUri), tableUri, key)
            .orElseThrow(() -> e);
      } catch (IllegalArgumentException e) {
        // e.g. the table exists with another schema: retrying cannot help
        throw ApplicationFailure.newNonRetryableFailureWithCause(
            e.getMessage(), FailureTypes.INVALID_TABLE, e);
      }
      log.info(
          "ingested {} rows into {} v{} ({}, {} skipped) in {} ms",
          data.rows(),
          tableUri,
          version,
          mode,
          bad.count(),
          (System.nanoTime() - t0) / 1_000_000);
      return result
          .setTable(TableRef.newBuilder().setUri(tableUri).setVersion(version))
          .setAlreadyIngested(false)
          .build();
    } catch (NoSuchFileException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          format(source) == SourceFormat.FASHION_MNIST
              ? FashionMnist.missing(given)
              : "source.uri " + given + " does not exist",
          FailureTypes.DATASET_MISSING);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + given, e);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.INVALID_ARGUMENT);
    }
  }

  private static SourceFiles openSource(String given) throws IOException {
    SourceFiles files = SourceFiles.open(given);
    if (files.files().isEmpty()) {
      files.close();
      throw ApplicationFailure.newNonRetryableFailure(
          "source.uri " + given + " holds no files", FailureTypes.DATASET_MISSING);
    }
    return files;
  }

  private Decoded decode(
      DataSource source,
      SourceFiles files,
      Optional<Snapshot> before,
      IngestMode mode,
      BadRecords bad)
      throws IOException {
    HashSplit hash =
        new HashSplit(
            source.hasTestFraction() ? source.getTestFraction() : HashSplit.DEFAULT_TEST_FRACTION);
    return switch (format(source)) {
      case FASHION_MNIST -> FashionMnist.read(files, bad);
      case IMAGE_FOLDER -> images(source, files, before, mode, hash, bad);
      case CSV -> tabular(source, files, hash, bad, CsvSource::read);
      case PARQUET -> tabular(source, files, hash, bad, ParquetSource::read);
    };
  }

  private static Decoded images(
      DataSource source,
      SourceFiles files,
      Optional<Snapshot> before,
      IngestMode mode,
      HashSplit hash,
      BadRecords bad)
      throws IOException {
    int[] shape = parseShape(source.getImageSize());
    if (shape == null && mode == IngestMode.append && before.isPresent()) {
      // an append takes the table's shape, so that new images fit the old ones
      Map<String, String> props = before.get().getTableProperties();
      if (props.containsKey(TableSchemas.IMAGE_SHAPE_PROPERTY)) {
        int[] chw = LabeledImages.shapeOf(props, TableSchemas.IMAGE_SHAPE_PROPERTY);
        shape = new int[] {chw[1], chw[2]};
      }
    }
    int channels = source.getImageMode() == DataSource.ImageMode.rgb ? 3 : 1;
    ImageFolderReader.Images img =
        ImageFolderReader.read(files.files(), shape, channels, hash, bad);
    return Decoded.images(
        img.labels(),
        img.splits(),
        img.classNames(),
        img.pixels(),
        img.channels(),
        img.height(),
        img.width());
  }

  private static Decoded tabular(
      DataSource source, SourceFiles files, HashSplit hash, BadRecords bad, TabularReader reader) {
    LabelColumns labelColumns = LabelColumns.of(source);
    if (labelColumns.names().isEmpty() || labelColumns.names().get(0).isBlank()) {
      throw ApplicationFailure.newNonRetryableFailure(
          labelColumns.field()
              + " is required for "
              + source.getFormat()
              + (source.getTask() == Task.multilabel ? " with task multilabel" : ""),
          FailureTypes.INVALID_ARGUMENT);
    }
    for (String c : labelColumns.names()) {
      if (source.getTask() == Task.multilabel
          && (c.isBlank()
              || c.contains(",")
              || labelColumns.names().indexOf(c) != labelColumns.names().lastIndexOf(c))) {
        // the table's label names are one comma-separated property, each naming one target
        throw ApplicationFailure.newNonRetryableFailure(
            "source.label_columns: '" + c + "' is empty, repeated or holds a comma",
            FailureTypes.INVALID_ARGUMENT);
      }
    }
    if (source.getTask() != Task.multilabel && source.getLabelColumnsCount() > 0) {
      throw ApplicationFailure.newNonRetryableFailure(
          "source.label_columns: only for task multilabel; "
              + source.getTask()
              + " takes one"
              + " label_column",
          FailureTypes.INVALID_ARGUMENT);
    }
    if (source.getTask() != Task.classification
        && source.getTask() != Task.TASK_UNSPECIFIED
        && source.getLabelLimitsCount() > 0) {
      throw ApplicationFailure.newNonRetryableFailure(
          "source.label_limits: a "
              + source.getTask()
              + " source's labels are not one class per row to limit",
          FailureTypes.INVALID_ARGUMENT);
    }
    Charset charset = charset(source);
    TabularRows rows =
        reader.read(
            files.files(),
            labelColumns,
            source.getFeatureColumnsList(),
            charset,
            source.getEncoding(),
            hash,
            bad);
    if (source.getTask() == Task.multilabel) {
      return Decoded.multilabel(
          MultilabelTargets.of(labelColumns, rows),
          labelColumns.names(),
          rows.splits(),
          rows.features(),
          rows.featureNames());
    }
    if (source.getTask() == Task.regression) {
      return Decoded.valued(
          values(source.getLabelColumn(), rows),
          rows.splits(),
          rows.features(),
          rows.featureNames());
    }
    List<String> classes = LabelClasses.of(rows.labels());
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < classes.size(); i++) {
      index.put(classes.get(i), i);
    }
    int[] labels = rows.labels().stream().mapToInt(index::get).toArray();
    return Decoded.features(labels, rows.splits(), classes, rows.features(), rows.featureNames());
  }

  /**
   * A regression source's labels as floats. A label that is no number means the column is not the
   * value to predict (or the task is not regression), so the whole source is refused, naming the
   * column and the first such record, rather than each row skipped as a bad record.
   */
  static float[] values(String labelColumn, TabularRows rows) {
    float[] out = new float[rows.size()];
    String[] why = new String[1];
    for (int i = 0; i < out.length; i++) {
      Float v = TabularRows.number(rows.labels().get(i), why);
      if (v == null) {
        throw KeelFailure.nonRetryable(
            "source.task regression: label column '"
                + labelColumn
                + "' is "
                + why[0]
                + " at "
                + rows.records().get(i)
                + " (a regression label is a number)",
            FailureTypes.INVALID_ARGUMENT);
      }
      out[i] = v;
    }
    return out;
  }

  private static boolean normalized(Snapshot table) {
    return !ImageNormalization.fromProperties(table.getTableProperties()).isNone();
  }

  /** The request's format, which {@link #ingest(IngestRequest)} checked. */
  private static SourceFormat format(DataSource source) {
    return SourceFormat.of(source.getFormat()).orElseThrow();
  }

  /** "HxW" (or "N" for a square) to {height, width}; null when empty. */
  static int[] parseShape(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    String[] p = s.strip().toLowerCase(Locale.ROOT).split("x");
    try {
      int h = Integer.parseInt(p[0].strip());
      int w = p.length > 1 ? Integer.parseInt(p[1].strip()) : h;
      if (p.length > 2 || h <= 0 || w <= 0) {
        throw new NumberFormatException();
      }
      return new int[] {h, w};
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("source.image_size '" + s + "' is not HxW (e.g. 28x28)");
    }
  }

  /**
   * An append must fit the table: same kind of rows, same image shape or feature columns, and
   * labels among the table's classes (renumbered to the table's order when they differ).
   */
  private static Decoded compatibleWith(Snapshot table, Decoded data, String tableUri) {
    Map<String, String> props = table.getTableProperties();
    String why = null;
    if (data.isImages()
        && props.containsKey(TableSchemas.IMAGE_SHAPE_PROPERTY)
        && !props.get(TableSchemas.IMAGE_SHAPE_PROPERTY).equals(data.imageShape())) {
      why =
          "its images are "
              + props.get(TableSchemas.IMAGE_SHAPE_PROPERTY)
              + ", the source's "
              + data.imageShape();
    } else if (!data.isImages()
        && props.containsKey(TableSchemas.FEATURE_NAMES_PROPERTY)
        && !props
            .get(TableSchemas.FEATURE_NAMES_PROPERTY)
            .equals(String.join(",", data.featureNames()))) {
      why =
          "its feature columns are ["
              + props.get(TableSchemas.FEATURE_NAMES_PROPERTY)
              + "], the source's "
              + data.featureNames();
    }
    String tableTask = props.getOrDefault(TableSchemas.TASK_PROPERTY, "classification");
    if (why == null && !data.isImages() && !tableTask.equals(data.task())) {
      why = "its task is " + tableTask + ", the source's " + data.task();
    }
    String classes = props.get(TableSchemas.CLASS_NAMES_PROPERTY);
    if (why == null
        && data.isMultilabel()
        && !String.join(",", data.classNames()).equals(classes)) {
      // a target's place is its label: other label columns would shift every row's meaning
      why = "its labels are [" + classes + "], the source's " + data.classNames();
    }
    if (why == null && classes != null && !data.classNames().isEmpty()) {
      List<String> tableClasses = List.of(classes.split(",", -1));
      if (!tableClasses.equals(data.classNames())) {
        int[] map = new int[data.classNames().size()];
        for (int i = 0; i < map.length; i++) {
          map[i] = tableClasses.indexOf(data.classNames().get(i));
          if (map[i] < 0) {
            why =
                "class '"
                    + data.classNames().get(i)
                    + "' is not one of its classes "
                    + tableClasses;
            break;
          }
        }
        if (why == null) {
          int[] labels = Arrays.stream(data.labels()).map(l -> map[l]).toArray();
          return data.withClasses(tableClasses, labels);
        }
      }
    }
    if (why != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot append to table "
              + tableUri
              + ": "
              + why
              + " (use mode: overwrite, or another target_table)",
          FailureTypes.INVALID_TABLE);
    }
    return data;
  }

  /**
   * The rows of the table before an append, per split and class (one scan, which also gives the row
   * count).
   */
  private SplitLabelCounts existingRows(Snapshot snapshot) {
    return SplitLabelCounts.countable(snapshot) ? SplitLabelCounts.of(engine, snapshot) : null;
  }

  private long rowCount(Snapshot snapshot) {
    return SplitCounter.count(engine, snapshot).values().stream().mapToLong(Long::longValue).sum();
  }

  /** The recorded result when the latest version was written by an ingest with this key. */
  private static Optional<IngestResult> alreadyIngested(
      Optional<Snapshot> latest, String tableUri, String key) {
    if (latest.isEmpty() || !key.equals(latest.get().getTableProperties().get(INGEST_KEY))) {
      return Optional.empty();
    }
    long version = latest.get().getVersion();
    log.info(
        "{} v{} was written by this very ingest (key {}); nothing to write",
        tableUri,
        version,
        key);
    IngestResult.Builder b = IngestResult.newBuilder();
    try {
      JsonFormat.parser()
          .ignoringUnknownFields()
          .merge(latest.get().getTableProperties().get(INGEST_RESULT), b);
    } catch (InvalidProtocolBufferException | NullPointerException e) {
      log.warn("{} v{}: unreadable {}: {}", tableUri, version, INGEST_RESULT, e.toString());
    }
    return Optional.of(
        b.setTable(TableRef.newBuilder().setUri(tableUri).setVersion(version))
            .setAlreadyIngested(true)
            .build());
  }

  static String json(IngestResult r) {
    try {
      return JsonFormat.printer()
          .omittingInsignificantWhitespace()
          .preservingProtoFieldNames()
          .print(r);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The source's mode (append when unset), after checking its other options; a number this build
   * does not name (a client built against newer protos) is a non-retryable InvalidArgument.
   */
  static IngestMode mode(DataSource source) {
    if (source.getMode() == IngestMode.UNRECOGNIZED) {
      throw ApplicationFailure.newNonRetryableFailure(
          "source.mode: "
              + EnumNames.unrecognized(source.getModeValue(), IngestMode.getDescriptor()),
          FailureTypes.INVALID_ARGUMENT);
    }
    charset(source);
    if (source.getOnBadRecord() == DataSource.OnBadRecord.UNRECOGNIZED) {
      throw ApplicationFailure.newNonRetryableFailure(
          "source.on_bad_record: "
              + EnumNames.unrecognized(
                  source.getOnBadRecordValue(), DataSource.OnBadRecord.getDescriptor()),
          FailureTypes.INVALID_ARGUMENT);
    }
    return source.getMode() == IngestMode.INGEST_MODE_UNSPECIFIED
        ? IngestMode.append
        : source.getMode();
  }

  /**
   * {@code source.encoding} resolved (UTF-8 when unset); an unknown name is a non-retryable
   * InvalidArgument naming it.
   */
  static Charset charset(DataSource source) {
    return SourceEncoding.charset(source.getEncoding())
        .orElseThrow(
            () ->
                ApplicationFailure.newNonRetryableFailure(
                    SourceEncoding.FIELD + ": " + SourceEncoding.unknown(source.getEncoding()),
                    FailureTypes.INVALID_ARGUMENT));
  }

  /** What makes two ingests the same: the data and every option that changes the rows written. */
  static String key(DataSource s, IngestMode mode, String checksum) {
    String options =
        String.join(
            "\n",
            s.getFormat().name(),
            checksum,
            mode.name(),
            s.getLabelColumn(),
            String.join(",", s.getFeatureColumnsList()),
            s.hasTestFraction() ? Double.toString(s.getTestFraction()) : "",
            s.getImageSize(),
            BadRecords.policy(s).name());
    if (s.getImageMode() == DataSource.ImageMode.rgb) {
      // only then, like the options below: grey keeps the keys recorded in existing tables
      options += "\nimage_mode:rgb";
    }
    if (s.getNormalize()) {
      options += "\nnormalize";
    }
    if (s.getTask() == Task.regression) {
      // only then, like the options below: a regression table of the same files is other rows
      options += "\ntask:regression";
    }
    if (s.getTask() == Task.multilabel) {
      options += "\ntask:multilabel:" + String.join(",", s.getLabelColumnsList());
    }
    if (s.getLabelLimitsCount() > 0) {
      // only then, so that the keys of ingests without limits stay those recorded in existing
      // tables
      options += "\nlabel_limits:" + LabelLimits.key(s.getLabelLimitsMap());
    }
    Charset charset = SourceEncoding.charset(s.getEncoding()).orElse(StandardCharsets.UTF_8);
    if (!charset.equals(StandardCharsets.UTF_8)) {
      // likewise only then: UTF-8, written or not, keeps the keys recorded in existing tables
      options += "\nencoding:" + charset.name();
    }
    return sha256(options.getBytes(StandardCharsets.UTF_8));
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SHA-256 over the four IDX files' bytes, in a fixed order (as before image folders existed). */
  private static String fashionChecksum(SourceFiles files) {
    Path dir = FashionMnist.dir(files);
    return sha256(dir);
  }

  /** SHA-256 over the four files' bytes, in a fixed order. */
  static String sha256(Path dir) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (String f : FASHION_MNIST_FILES) {
        SourceFiles.digest(md, dir.resolve(f), buf);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("hashing " + dir, e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Fashion-MNIST's IDX files; a truncated file is a corrupt record at the point it ends. */
  static final class FashionMnist {
    private FashionMnist() {}

    static String missing(String uri) {
      return "Fashion-MNIST not found at "
          + uri
          + ": install it with 'apt-get install -y dataset-fashion-mnist'";
    }

    static Path dir(SourceFiles files) {
      Path dir = null;
      for (SourceFiles.Entry e : files.files()) {
        if (FASHION_MNIST_FILES.contains(e.relative())) {
          dir = e.path().getParent();
        }
      }
      for (String f : FASHION_MNIST_FILES) {
        if (dir == null || !Files.isRegularFile(dir.resolve(f))) {
          throw ApplicationFailure.newNonRetryableFailure(
              missing(files.uri()), FailureTypes.DATASET_MISSING);
        }
      }
      return dir;
    }

    static Decoded read(SourceFiles files, BadRecords bad) throws IOException {
      Path dir = dir(files);
      Split train = split(dir, 0, Splits.TRAIN, bad);
      Split test = split(dir, 2, Splits.TEST, bad);
      if (train.images.count() > 0
          && test.images.count() > 0
          && (train.images.rows() != test.images.rows()
              || train.images.cols() != test.images.cols())) {
        throw ApplicationFailure.newNonRetryableFailure(
            "train and test images differ in shape", FailureTypes.DATASET_CORRUPT);
      }
      int n = train.n + test.n;
      int size = train.images.rows() * train.images.cols();
      int[] labels = new int[n];
      String[] splits = new String[n];
      byte[] pixels = new byte[n * size];
      for (int i = 0; i < n; i++) {
        boolean isTrain = i < train.n;
        labels[i] = (isTrain ? train.labels[i] : test.labels[i - train.n]) & 0xFF;
        splits[i] = isTrain ? Splits.TRAIN : Splits.TEST;
      }
      System.arraycopy(train.images.pixels(), 0, pixels, 0, train.n * size);
      System.arraycopy(test.images.pixels(), 0, pixels, train.n * size, test.n * size);
      return Decoded.images(
          labels,
          splits,
          FASHION_MNIST_CLASSES,
          pixels,
          1,
          train.images.rows(),
          train.images.cols());
    }

    private record Split(IdxReader.Images images, byte[] labels, int n) {}

    private static Split split(Path dir, int first, String name, BadRecords bad)
        throws IOException {
      String imagesFile = FASHION_MNIST_FILES.get(first);
      String labelsFile = FASHION_MNIST_FILES.get(first + 1);
      IdxReader.Images images;
      IdxReader.Labels labels;
      try {
        images = IdxReader.readImagesLenient(dir.resolve(imagesFile));
        labels = IdxReader.readLabelsLenient(dir.resolve(labelsFile));
      } catch (IOException e) {
        // the header itself is missing or wrong: nothing of this split is usable
        throw ApplicationFailure.newNonRetryableFailure(
            e.getMessage(), FailureTypes.DATASET_CORRUPT);
      }
      if (images.declared() != labels.declared()) {
        throw ApplicationFailure.newNonRetryableFailure(
            name + ": " + images.declared() + " images but " + labels.declared() + " labels",
            FailureTypes.DATASET_CORRUPT);
      }
      int n = Math.min(images.count(), labels.values().length);
      if (n < images.declared()) {
        boolean imagesCut = images.count() < images.declared();
        String file = imagesCut ? imagesFile : labelsFile;
        int read = imagesCut ? images.count() : labels.values().length;
        bad.report(
            file + ":record " + read,
            "truncated: the header says "
                + images.declared()
                + " records, the file ends after "
                + read,
            images.declared() - n);
      }
      return new Split(images, labels.values(), n);
    }
  }
}
