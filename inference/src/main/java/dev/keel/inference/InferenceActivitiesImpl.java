package dev.keel.inference;

import ai.djl.pytorch.jni.JniUtils;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.HeartbeatTicker;
import dev.keel.activities.infer.InferenceActivities;
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
import dev.keel.gpu.model.ModelRegistry;
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
import java.util.List;
import java.util.Locale;
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
public final class InferenceActivitiesImpl implements InferenceActivities {
  private static final Logger log = LoggerFactory.getLogger(InferenceActivitiesImpl.class);
  static final String TXN_PREFIX = "keel-infer:";

  private final StorageRoot storage;
  private final ModelRegistry registry;
  private final int threads;
  /** Idle predictors of one checkpoint (and thread count), see {@link #borrow}. */
  private final java.util.ArrayDeque<CheckpointPredictor> idle = new java.util.ArrayDeque<>();
  private String idleKey;

  /**
   * @param storage resolves table names in requests ({@code tables/<name>}); null means requests carry URIs
   * @param threads libtorch intra-op threads; 0 keeps the process setting
   */
  public InferenceActivitiesImpl(StorageRoot storage, ModelRegistry registry, int threads) {
    this.storage = storage;
    this.registry = registry;
    this.threads = threads;
  }

  // ---------------------------------------------------------------- plan

  @Override
  public InferencePlan plan(InferenceRequest request) {
    // a big table's log or a slow store can take longer than the heartbeat timeout
    try (HeartbeatTicker alive = HeartbeatTicker.start()) {
      return planned(request);
    }
  }

  private InferencePlan planned(InferenceRequest request) {
    String tableUri = request.getEvaluateOnly() ? "" : predictionsTable(request.getPredictionsTableUri());
    try {
      requireField(request.getCheckpoint().getUri(), "checkpoint.uri");
      requireField(request.getData().getUri(), "data.uri");
      verifyCheckpoint(request.getCheckpoint().getUri());
      Engine engine = DeltaTables.defaultEngine();
      if (!request.getEvaluateOnly()) {
        checkPredictionsSchema(engine, tableUri);
      }
      long maxRows = request.getMaxPartitionRows() > 0 ? request.getMaxPartitionRows() : Long.MAX_VALUE;
      TablePartitions.Plan plan = TablePartitions.plan(engine, request.getData(), split(request), maxRows);
      log.info("inference of {} v{} split {}: {} rows in {} partition(s)", request.getData().getUri(),
          request.getData().getVersion(), split(request), plan.rows(), plan.partitions().size());
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
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + uri, e);
    }
  }

  /** An existing predictions table of another schema is refused before anything is scored. */
  private static void checkPredictionsSchema(Engine engine, String tableUri) {
    Optional<Snapshot> existing = DeltaTables.latestSnapshot(engine, tableUri);
    if (existing.isPresent() && !existing.get().getSchema().fieldNames().equals(TableSchemas.PREDICTIONS.fieldNames())) {
      throw new IllegalArgumentException("predictions table " + DeltaTables.displayUri(tableUri) + " has columns "
          + existing.get().getSchema().fieldNames() + ", not those of a predictions table "
          + TableSchemas.PREDICTIONS.fieldNames());
    }
  }

  // ---------------------------------------------------------------- score

  @Override
  public ScorePartitionResult scorePartition(ScorePartitionRequest request) {
    // reading, a forward pass over thousands of rows and writing cannot heartbeat by themselves
    try (HeartbeatTicker alive = HeartbeatTicker.start()) {
      return score(request);
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    } catch (RuntimeException e) {
      throw StorageFailures.translate(request.getPredictionsTableUri(), e);
    }
  }

  private ScorePartitionResult score(ScorePartitionRequest request) {
    long started = System.nanoTime();
    InferenceRequest r = request.getRequest();
    InferencePartition partition = request.getPartition();
    String tableUri = request.getPredictionsTableUri();
    boolean write = !r.getEvaluateOnly();
    String staging = write ? stagingDirectory(tableUri, request.getRunId(), partition.getIndex()) : "";
    Engine engine = DeltaTables.defaultEngine();
    if (write) {
      // An earlier attempt's files can never be committed (its result was not accepted): drop them.
      deleteFiles(engine, staging);
    }

    LabeledExamples images;
    Predictions predictions;
    long read;
    try (Lanes lanes = lanes(r, partition.getRows())) {
      images = TablePartitions.read(engine, r.getData(), split(r), partition);
      read = System.nanoTime();
      predictions = lanes.predict(images);
    }
    long predicted = System.nanoTime();

    int n = images.size();
    double[] scores = new double[n];
    long correct = 0;
    for (int i = 0; i < n; i++) {
      scores[i] = predictions.scores()[i];
      correct += predictions.labels()[i] == images.labels()[i] ? 1 : 0;
    }
    List<DataFileStatus> files = write ? stage(r, request, tableUri, staging, images, predictions, scores) : List.of();
    ScorePartitionResult.Builder out = ScorePartitionResult.newBuilder()
        .setIndex(partition.getIndex()).setRows(n).setCorrect(correct);
    for (DataFileStatus f : files) {
      out.addFiles(StagedDataFile.newBuilder().setPath(f.getPath()).setSize(f.getSize())
          .setModificationTime(f.getModificationTime())
          .setStatisticsJson(f.getStatistics().map(s -> s.serializeAsJson(TableSchemas.PREDICTIONS)).orElse("")));
    }
    PartitionStatistics.addTo(out, images, predictions.labels());
    double seconds = (System.nanoTime() - started) / 1e9;
    log.info(String.format(Locale.ROOT, "scored partition %d (%d rows of %s) in %.2f s (read %.2f s, predict %.2f s,"
        + " write %.2f s) into %s", partition.getIndex(), n, partition.getFile(), seconds, (read - started) / 1e9,
        (predicted - read) / 1e9, (System.nanoTime() - predicted) / 1e9, staging));
    return out.setSeconds(seconds).build();
  }

  /** The partition's predictions as staged Parquet files with the lineage columns, committed later with the run's others. */
  private static List<DataFileStatus> stage(InferenceRequest r, ScorePartitionRequest request, String tableUri,
      String staging, LabeledExamples images, Predictions predictions, double[] scores) {
    int n = images.size();
    Columns rows = Columns.of(n)
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
   * The scoring lanes of one partition, each loading (or borrowing) the request's model on a scoring
   * thread of its own while the activity thread reads the rows: on a fresh worker, loading and reading
   * each cost a tenth of scoring 10,000 images. With {@code t} threads on a CPU the partition is scored
   * as {@code t} slices by {@code t} one-thread models at once rather than by one model with {@code t}
   * intra-op threads: the CNN's layers are too small for libtorch to keep two threads busy (measured
   * in benchmarks/README.md), slices are independent and need no synchronisation. A GPU scores the
   * whole partition with one model.
   */
  private Lanes lanes(InferenceRequest request, long rows) {
    int t = request.getThreads() > 0 ? request.getThreads() : threads;
    int lanes = CheckpointPredictor.cpuOnly() && t > 1
        ? (int) Math.max(1, Math.min(t, ceilDiv(rows, CheckpointPredictor.DEFAULT_BATCH))) : 1;
    int perLane = lanes > 1 ? 1 : t;
    Lanes out = new Lanes();
    try {
      for (int i = 0; i < lanes; i++) {
        out.add(load(ScoringThreads.lease(), request, perLane));
      }
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
    return out;
  }

  private static final AtomicLong LANED_PARTITIONS = new AtomicLong();

  /** Partitions this JVM scored in more than one lane (tests). */
  static long partitionsScoredInLanes() {
    return LANED_PARTITIONS.get();
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  private Loading load(ScoringThreads.Lease scorer, InferenceRequest request, int t) {
    String key = request.getCheckpoint().getUri() + "#" + t;
    Future<CheckpointPredictor> predictor = scorer.submit(() -> borrow(key, request.getCheckpoint().getUri(), t));
    return new Loading(scorer, request, key, t, predictor);
  }

  /**
   * A partition's lanes: {@link #predict} scores one slice per lane at once (slices start at whole
   * batches, so each batch is the one a single lane would score) and joins them in row order.
   */
  private static final class Lanes implements AutoCloseable {
    private final List<Loading> lanes = new ArrayList<>();

    void add(Loading lane) {
      lanes.add(lane);
    }

    Predictions predict(LabeledExamples images) {
      int n = images.size();
      if (lanes.size() == 1) {
        return lanes.get(0).predict(images);
      }
      LANED_PARTITIONS.incrementAndGet();
      int batch = CheckpointPredictor.DEFAULT_BATCH;
      int perLane = (int) ceilDiv(ceilDiv(n, lanes.size()), batch) * batch;
      List<Future<Predictions>> parts = new ArrayList<>();
      for (int i = 0; i < lanes.size(); i++) {
        int from = Math.min(n, i * perLane);
        int to = Math.min(n, from + perLane);
        parts.add(lanes.get(i).predictAsync(images.slice(from, to)));
      }
      List<Predictions> slices = new ArrayList<>();
      RuntimeException failed = null;
      for (int i = 0; i < parts.size(); i++) {
        try {
          slices.add(lanes.get(i).await(parts.get(i)));
        } catch (RuntimeException e) {
          // wait for every lane before failing: each holds a model it must give back or close
          failed = failed == null ? e : failed;
        }
      }
      if (failed != null) {
        throw failed;
      }
      return Predictions.concatenate(slices);
    }

    @Override
    public void close() {
      lanes.forEach(Loading::close);
    }
  }

  /**
   * A model loading on a scoring thread it leases; {@link #predict} scores on that thread, once.
   * Closed without scoring (the rows could not be read), it gives the loaded model back for the next
   * partition; closed, it gives the thread back.
   */
  private final class Loading implements AutoCloseable {
    private final ScoringThreads.Lease scorer;
    private final InferenceRequest request;
    private final String key;
    private final int threads;
    private final Future<CheckpointPredictor> predictor;
    private boolean used;

    Loading(ScoringThreads.Lease scorer, InferenceRequest request, String key, int threads,
        Future<CheckpointPredictor> predictor) {
      this.scorer = scorer;
      this.request = request;
      this.key = key;
      this.threads = threads;
      this.predictor = predictor;
    }

    Predictions predict(LabeledExamples images) {
      return await(predictAsync(images));
    }

    Future<Predictions> predictAsync(LabeledExamples images) {
      used = true;
      // the load's failure, if any, surfaces when the scoring is awaited, after the rows were read
      return scorer.submit(() -> predictOnScoringThread(ThreadWork.await(predictor, () -> {}), images));
    }

    Predictions await(Future<Predictions> scored) {
      try {
        return ThreadWork.await(scored, () -> {});
      } catch (InvalidFieldException e) {
        // a tabular checkpoint on an images table, another image size, ...: retrying cannot help
        throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_INFERENCE_REQUEST);
      } catch (CorruptCheckpointException e) {
        throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read checkpoint " + request.getCheckpoint().getUri(), e);
      }
    }

    @Override
    public void close() {
      try {
        if (!used) {
          giveBack(key, ThreadWork.await(predictor, () -> {}));
        }
      } catch (IOException | RuntimeException loadFailedToo) {
        // nothing was loaded; the reading's failure is the one to report
      } finally {
        scorer.close();
      }
    }

    private Predictions predictOnScoringThread(CheckpointPredictor predictor, LabeledExamples images) {
      // libtorch (OpenMP) keeps the intra-op thread count per calling thread, and a reused predictor
      // may have been opened on another scoring thread: set it on this one (once per thread and count)
      if (threads > 0 && JniUtils.getNumThreads() != threads) {
        JniUtils.setNumThreads(threads);
      }
      boolean ok = false;
      try {
        predictor.requireFits(request.getData().getUri() + " v" + request.getData().getVersion(), images);
        Predictions p = predictor.predict(images);
        ok = true;
        return p;
      } finally {
        if (ok) {
          giveBack(key, predictor);
        } else {
          predictor.close();
        }
      }
    }
  }

  /**
   * A loaded model of the checkpoint, reused across the partitions a worker scores: loading one
   * (verifying the checkpoint's files, building and restoring the model) per partition cost as much as
   * scoring a few hundred rows. Each predictor serves one partition at a time; predictors of the
   * previous checkpoint are closed when another checkpoint's come back.
   */
  private CheckpointPredictor borrow(String key, String uri, int t) throws IOException {
    synchronized (idle) {
      if (key.equals(idleKey) && !idle.isEmpty()) {
        return idle.pop();
      }
    }
    return CheckpointPredictor.open(uri, registry, t);
  }

  private void giveBack(String key, CheckpointPredictor predictor) {
    List<CheckpointPredictor> evicted = new ArrayList<>();
    synchronized (idle) {
      if (!key.equals(idleKey)) {
        evicted.addAll(idle);
        idle.clear();
        idleKey = key;
      }
      idle.push(predictor);
    }
    evicted.forEach(CheckpointPredictor::close);
  }

  // ---------------------------------------------------------------- commit / discard

  @Override
  public TableRef commit(CommitPredictionsRequest request) {
    try (HeartbeatTicker alive = HeartbeatTicker.start()) {
      return committed(request);
    }
  }

  private TableRef committed(CommitPredictionsRequest request) {
    String tableUri = request.getPredictionsTableUri();
    String appId = TXN_PREFIX + request.getRunId();
    List<DataFileStatus> files = new ArrayList<>();
    for (StagedDataFile f : request.getFilesList()) {
      Optional<DataFileStatistics> stats = f.getStatisticsJson().isEmpty() ? Optional.empty()
          : DataFileStatistics.deserializeFromJson(f.getStatisticsJson(), TableSchemas.PREDICTIONS);
      files.add(new DataFileStatus(f.getPath(), f.getSize(), f.getModificationTime(), stats));
    }
    try {
      Engine engine = DeltaTables.defaultEngine();
      for (StagedDataFile f : request.getFilesList()) {
        requireExists(engine, f.getPath());
      }
      long version = new DeltaTableWriter(tableUri, TableSchemas.PREDICTIONS).newAppend()
          .addFiles(files).transactionId(appId, 1).commit();
      log.info("committed run {}: {} rows in {} file(s) as {} v{}", request.getRunId(), request.getRows(),
          files.size(), tableUri, version);
      return TableRef.newBuilder().setUri(DeltaTables.displayUri(tableUri)).setVersion(version).build();
    } catch (ConcurrentTransactionException e) {
      long version = versionHolding(DeltaTables.defaultEngine(), tableUri, appId);
      log.info("run {} was already committed to {} as version {}", request.getRunId(), tableUri, version);
      return TableRef.newBuilder().setUri(DeltaTables.displayUri(tableUri)).setVersion(version).build();
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    } catch (RuntimeException e) {
      throw StorageFailures.translate(tableUri, e);
    }
  }

  /** The first version whose snapshot knows {@code appId}: the one that committed it (binary search). */
  static long versionHolding(Engine engine, String tableUri, String appId) {
    long lo = 0;
    long hi = DeltaTables.latestVersion(engine, tableUri).orElseThrow();
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (DeltaTables.snapshotAt(engine, tableUri, mid).getLatestTransactionVersion(engine, appId).isPresent()) {
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
    try (HeartbeatTicker alive = HeartbeatTicker.start()) {
      discardNow(request);
    }
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
    try (CloseableIterator<FileStatus> it = engine.getFileSystemClient().listFrom(dir + "/" + from)) {
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
    return request.getSplit().isEmpty() ? "test" : request.getSplit();
  }

  private static void requireField(String value, String field) {
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + ": required");
    }
  }

  private static ApplicationFailure invalid(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, FailureTypes.INVALID_INFERENCE_REQUEST);
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
