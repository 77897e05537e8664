package dev.keel.inference;

import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.HeartbeatTicker;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.StagedDataFile;
import dev.keel.api.v1.TableRef;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.train.ThreadWork;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledExamples;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import io.temporal.failure.ApplicationFailure;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The activities of the {@code Inference} workflow (see {@link InferenceActivities}). A run's
 * partitions write Parquet files under {@code <predictions table>/run-<run id>/part-<index>/}; only
 * the files a partition's accepted result lists are committed, in one Delta commit whose
 * transaction id is the run's, so a retried, duplicated or abandoned attempt never adds rows.
 */
public final class InferenceActivitiesImpl implements InferenceActivities, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InferenceActivitiesImpl.class);
  static final String TXN_PREFIX = "keel-infer:";

  /**
   * Activity slots an inference worker should offer: two, so that one partition's rows are read (or
   * its predictions written) while another partition is scored. Both partitions' batches queue for
   * the same {@link ScoringLanes}, which already use every thread the worker was given.
   */
  public static final int ACTIVITY_SLOTS = 2;

  private final StorageRoot storage;
  private final ModelZoo registry;
  private final int threads;

  /**
   * Scoring lanes by lanes x threads per lane (one entry unless requests ask for other thread
   * counts).
   */
  private final Map<String, ScoringLanes> lanes = new HashMap<>();

  /**
   * @param storage resolves table names in requests ({@code tables/<name>}); null means requests
   *     carry URIs
   * @param threads libtorch intra-op threads; 0 keeps the process setting
   */
  public InferenceActivitiesImpl(StorageRoot storage, ModelZoo registry, int threads) {
    this.storage = storage;
    this.registry = registry;
    this.threads = threads;
  }

  // ---------------------------------------------------------------- plan

  @Override
  public InferencePlan plan(InferenceRequest request) {
    return ActivityBoundary.call(
        () -> {
          // a big table's log or a slow store can take longer than the heartbeat timeout
          try (HeartbeatTicker alive = HeartbeatTicker.start()) {
            return planned(request);
          }
        });
  }

  private InferencePlan planned(InferenceRequest request) {
    String tableUri =
        request.getEvaluateOnly() ? "" : predictionsTable(request.getPredictionsTableUri());
    try {
      requireField(request.getCheckpoint().getUri(), "checkpoint.uri");
      requireField(request.getData().getUri(), "data.uri");
      verifyCheckpoint(request.getCheckpoint().getUri());
      Engine engine = DeltaTables.defaultEngine();
      if (!request.getEvaluateOnly()) {
        checkPredictionsSchema(engine, tableUri);
      }
      long maxRows =
          request.getMaxPartitionRows() > 0 ? request.getMaxPartitionRows() : Long.MAX_VALUE;
      TablePartitions.Plan plan =
          TablePartitions.plan(engine, request.getData(), split(request), maxRows);
      log.info(
          "inference of {} v{} split {}: {} rows in {} partition(s)",
          request.getData().getUri(),
          request.getData().getVersion(),
          split(request),
          plan.rows(),
          plan.partitions().size());
      return InferencePlan.newBuilder()
          .setPredictionsTableUri(tableUri)
          .addAllPartitions(plan.partitions())
          .setRows(plan.rows())
          .setSourceTableUri(DeltaTables.displayUri(request.getData().getUri()))
          .addAllClassNames(plan.classNames())
          .build();
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    } catch (RuntimeException e) {
      throw StorageFailures.translate(request.getData().getUri(), e);
    }
  }

  private void verifyCheckpoint(String uri) {
    try {
      VerifiedCheckpoint.open(CheckpointStorage.forRoot(uri), uri);
    } catch (CorruptCheckpointException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + uri, e);
    }
  }

  /** An existing predictions table of another schema is refused before anything is scored. */
  private static void checkPredictionsSchema(Engine engine, String tableUri) {
    Optional<Snapshot> existing = DeltaTables.latestSnapshot(engine, tableUri);
    if (existing.isPresent()
        && !existing.get().getSchema().fieldNames().equals(TableSchemas.PREDICTIONS.fieldNames())) {
      throw new IllegalArgumentException(
          "predictions table "
              + DeltaTables.displayUri(tableUri)
              + " has columns "
              + existing.get().getSchema().fieldNames()
              + ", not those of a predictions table "
              + TableSchemas.PREDICTIONS.fieldNames());
    }
  }

  // ---------------------------------------------------------------- score

  @Override
  public ScorePartitionResult scorePartition(ScorePartitionRequest request) {
    return ActivityBoundary.call(
        () -> {
          // reading, a forward pass over thousands of rows and writing cannot heartbeat by
          // themselves
          try (HeartbeatTicker alive = HeartbeatTicker.start()) {
            return score(request);
          } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
          } catch (RuntimeException e) {
            throw StorageFailures.translate(request.getPredictionsTableUri(), e);
          }
        });
  }

  private ScorePartitionResult score(ScorePartitionRequest request) {
    long started = System.nanoTime();
    InferenceRequest r = request.getRequest();
    InferencePartition partition = request.getPartition();
    String tableUri = request.getPredictionsTableUri();
    boolean write = !r.getEvaluateOnly();
    String staging =
        write ? stagingDirectory(tableUri, request.getRunId(), partition.getIndex()) : "";
    Engine engine = DeltaTables.defaultEngine();
    if (write) {
      // An earlier attempt's files can never be committed (its result was not accepted): drop them.
      deleteFiles(engine, staging);
    }

    ScoringLanes lanes = lanes(r);
    String key =
        r.getCheckpoint()
            .getUri(); // a set of lanes has one thread count: the checkpoint names the model
    ScoringLanes.Opener opener =
        () ->
            CheckpointPredictor.open(r.getCheckpoint().getUri(), registry, lanes.threadsPerLane());
    lanes.prepare(key, opener); // a fresh worker loads its models while the rows are read
    LabeledExamples images = TablePartitions.read(engine, r.getData(), split(r), partition);
    long read = System.nanoTime();
    if (lanes.lanes() > 1 && images.size() > CheckpointPredictor.DEFAULT_BATCH) {
      LANED_PARTITIONS.incrementAndGet();
    }
    Predictions predictions =
        scored(
            r,
            lanes.score(
                key,
                opener,
                DeltaTables.displayUri(r.getData().getUri()) + " v" + r.getData().getVersion(),
                images));
    long predicted = System.nanoTime();

    int n = images.size();
    double[] scores = new double[n];
    long correct = 0;
    for (int i = 0; i < n; i++) {
      scores[i] = predictions.scores()[i];
      correct += predictions.labels()[i] == images.labels()[i] ? 1 : 0;
    }
    List<DataFileStatus> files =
        write ? stage(r, request, tableUri, staging, images, predictions, scores) : List.of();
    ScorePartitionResult.Builder out =
        ScorePartitionResult.newBuilder()
            .setIndex(partition.getIndex())
            .setRows(n)
            .setCorrect(correct);
    for (DataFileStatus f : files) {
      out.addFiles(
          StagedDataFile.newBuilder()
              .setPath(f.getPath())
              .setSize(f.getSize())
              .setModificationTime(f.getModificationTime())
              .setStatisticsJson(
                  f.getStatistics()
                      .map(s -> s.serializeAsJson(TableSchemas.PREDICTIONS))
                      .orElse("")));
    }
    PartitionStatistics.addTo(out, images, predictions.labels());
    double seconds = (System.nanoTime() - started) / 1e9;
    log.info(
        String.format(
            Locale.ROOT,
            "scored partition %d (%d rows of %s) in %.2f s (read %.2f s, predict %.2f s,"
                + " write %.2f s) into %s",
            partition.getIndex(),
            n,
            partition.getFile(),
            seconds,
            (read - started) / 1e9,
            (predicted - read) / 1e9,
            (System.nanoTime() - predicted) / 1e9,
            staging));
    return out.setSeconds(seconds).build();
  }

  /**
   * The partition's predictions as staged Parquet files with the lineage columns, committed later
   * with the run's others.
   */
  private static List<DataFileStatus> stage(
      InferenceRequest r,
      ScorePartitionRequest request,
      String tableUri,
      String staging,
      LabeledExamples images,
      Predictions predictions,
      double[] scores) {
    int n = images.size();
    Columns rows =
        Columns.of(n)
            .add("id", images.ids())
            .add("predicted_label", predictions.labels())
            .add("score", scores)
            .add("checkpoint_id", filled(n, r.getCheckpoint().getUuid()))
            .add("source_table_version", filledLong(n, r.getData().getVersion()))
            .add("source_table_uri", filled(n, DeltaTables.displayUri(r.getData().getUri())))
            .add("model_version", filled(n, r.getModelVersion()))
            .add("run_id", filled(n, request.getRunId()));
    return new DeltaTableWriter(tableUri, TableSchemas.PREDICTIONS).stageFiles(staging, rows);
  }

  /**
   * The worker's scoring lanes for the request's thread count, started on first use. With {@code t}
   * threads on a CPU a partition is scored by {@code t} one-thread models at once, a batch each; a
   * GPU scores with one model.
   */
  private ScoringLanes lanes(InferenceRequest request) {
    int t = request.getThreads() > 0 ? request.getThreads() : threads;
    int lanes = CheckpointPredictor.cpuOnly() && t > 1 ? t : 1;
    int perLane = lanes > 1 ? 1 : t;
    synchronized (this.lanes) {
      return this.lanes.computeIfAbsent(
          lanes + "x" + perLane, k -> new ScoringLanes(lanes, perLane));
    }
  }

  /**
   * Ends the scoring lanes' threads and closes their models, once the partitions queued so far are
   * scored.
   */
  @Override
  public void close() {
    synchronized (lanes) {
      lanes.values().forEach(ScoringLanes::close);
      lanes.clear();
    }
  }

  private static final AtomicLong LANED_PARTITIONS = new AtomicLong();

  /** Partitions this JVM scored in more than one lane (tests). */
  static long partitionsScoredInLanes() {
    return LANED_PARTITIONS.get();
  }

  private static Predictions scored(InferenceRequest request, Future<Predictions> scoring) {
    try {
      return ThreadWork.await(scoring, () -> {});
    } catch (InvalidFieldException e) {
      // a tabular checkpoint on an images table, another image size, ...: retrying cannot help
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.INVALID_INFERENCE_REQUEST);
    } catch (CorruptCheckpointException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read checkpoint " + request.getCheckpoint().getUri(), e);
    }
  }

  // ---------------------------------------------------------------- commit / discard

  @Override
  public TableRef commit(CommitPredictionsRequest request) {
    return ActivityBoundary.call(
        () -> {
          try (HeartbeatTicker alive = HeartbeatTicker.start()) {
            return committed(request);
          }
        });
  }

  private TableRef committed(CommitPredictionsRequest request) {
    String tableUri = request.getPredictionsTableUri();
    String appId = TXN_PREFIX + request.getRunId();
    List<DataFileStatus> files = new ArrayList<>();
    for (StagedDataFile f : request.getFilesList()) {
      Optional<DataFileStatistics> stats =
          f.getStatisticsJson().isEmpty()
              ? Optional.empty()
              : DataFileStatistics.deserializeFromJson(
                  f.getStatisticsJson(), TableSchemas.PREDICTIONS);
      files.add(new DataFileStatus(f.getPath(), f.getSize(), f.getModificationTime(), stats));
    }
    try {
      Engine engine = DeltaTables.defaultEngine();
      for (StagedDataFile f : request.getFilesList()) {
        requireExists(engine, f.getPath());
      }
      long version =
          new DeltaTableWriter(tableUri, TableSchemas.PREDICTIONS)
              .newAppend()
              .addFiles(files)
              .transactionId(appId, 1)
              .commit();
      log.info(
          "committed run {}: {} rows in {} file(s) as {} v{}",
          request.getRunId(),
          request.getRows(),
          files.size(),
          tableUri,
          version);
      return TableRef.newBuilder()
          .setUri(DeltaTables.displayUri(tableUri))
          .setVersion(version)
          .build();
    } catch (ConcurrentTransactionException e) {
      long version = versionHolding(DeltaTables.defaultEngine(), tableUri, appId);
      log.info(
          "run {} was already committed to {} as version {}",
          request.getRunId(),
          tableUri,
          version);
      return TableRef.newBuilder()
          .setUri(DeltaTables.displayUri(tableUri))
          .setVersion(version)
          .build();
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    } catch (RuntimeException e) {
      throw StorageFailures.translate(tableUri, e);
    }
  }

  /**
   * The first version whose snapshot knows {@code appId}: the one that committed it (binary
   * search).
   */
  static long versionHolding(Engine engine, String tableUri, String appId) {
    long lo = 0;
    long hi = DeltaTables.latestVersion(engine, tableUri).orElseThrow();
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (DeltaTables.snapshotAt(engine, tableUri, mid)
          .getLatestTransactionVersion(engine, appId)
          .isPresent()) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private static void requireExists(Engine engine, String path) {
    try {
      engine.getFileSystemClient().getFileStatus(path);
    } catch (FileNotFoundException e) {
      // a staged file vanished (deleted by hand, or a discard raced a commit): committing would
      // reference a missing file, so the run fails
      throw new IllegalArgumentException("staged predictions file " + path + " does not exist", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot check staged file " + path, e);
    }
  }

  @Override
  public void discard(DiscardPredictionsRequest request) {
    ActivityBoundary.run(
        () -> {
          try (HeartbeatTicker alive = HeartbeatTicker.start()) {
            discardNow(request);
          }
        });
  }

  private void discardNow(DiscardPredictionsRequest request) {
    String run = runDirectory(request.getPredictionsTableUri(), request.getRunId());
    Engine engine = DeltaTables.defaultEngine();
    try {
      for (String dir : list(engine, run, "part-")) {
        deleteFiles(engine, dir);
        delete(engine, dir);
      }
      delete(engine, run);
    } catch (RuntimeException e) {
      throw StorageFailures.translate(request.getPredictionsTableUri(), e);
    }
  }

  // ---------------------------------------------------------------- staging layout

  static String runDirectory(String tableUri, String runId) {
    String t = DeltaTables.tablePath(tableUri);
    return (t.endsWith("/") ? t : t + "/") + "run-" + runId;
  }

  static String stagingDirectory(String tableUri, String runId, int partition) {
    return runDirectory(tableUri, runId) + String.format(Locale.ROOT, "/part-%05d", partition);
  }

  /**
   * Deletes the staged Parquet files directly inside {@code dir} (none when it does not exist).
   * Kernel names them {@code <uuid>...parquet}, so they all sort at or after "0".
   */
  private static void deleteFiles(Engine engine, String dir) {
    for (String f : list(engine, dir, "0")) {
      delete(engine, f);
    }
  }

  /**
   * Paths of the entries directly inside {@code dir} whose names sort at or after {@code from};
   * empty when {@code dir} does not exist. (Kernel's listFrom lists the directory of a path from
   * that path's name on.)
   */
  private static List<String> list(Engine engine, String dir, String from) {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<FileStatus> it =
        engine.getFileSystemClient().listFrom(dir + "/" + from)) {
      while (it.hasNext()) {
        out.add(it.next().getPath());
      }
    } catch (FileNotFoundException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + dir, e);
    }
    return out;
  }

  private static void delete(Engine engine, String path) {
    try {
      engine.getFileSystemClient().delete(path);
    } catch (FileNotFoundException e) {
      // already gone
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + path, e);
    }
  }

  // ---------------------------------------------------------------- helpers

  private String predictionsTable(String nameOrUri) {
    if (nameOrUri.isBlank()) {
      throw invalid("predictions_table_uri: required");
    }
    return DeltaTables.tablePath(storage == null ? nameOrUri : storage.table(nameOrUri));
  }

  private static String split(InferenceRequest request) {
    return request.getSplit().isEmpty() ? Splits.TEST : request.getSplit();
  }

  private static void requireField(String value, String field) {
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + ": required");
    }
  }

  private static ApplicationFailure invalid(String message) {
    return ApplicationFailure.newNonRetryableFailure(
        message, FailureTypes.INVALID_INFERENCE_REQUEST);
  }

  private static String[] filled(int n, String value) {
    String[] a = new String[n];
    Arrays.fill(a, value);
    return a;
  }

  private static long[] filledLong(int n, long value) {
    long[] a = new long[n];
    Arrays.fill(a, value);
    return a;
  }
}
