package dev.keel.gpu.train;

import ai.djl.engine.Engine;
import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.GangSpec;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.collective.CollectiveException;
import dev.keel.gpu.collective.NativeCollectives;
import dev.keel.gpu.gang.Fingerprint;
import dev.keel.gpu.gang.GangJoin;
import dev.keel.gpu.gang.GangMember;
import dev.keel.gpu.gang.RankIdentity;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Train} activity: validates the request, resumes from the last checkpoint of a previous
 * attempt (heartbeat details) or else {@code start_from} or else scratch, trains, and heartbeats
 * {@link TrainProgress} at most every {@code heartbeatInterval} (and right after each checkpoint).
 *
 * <p>Non-retryable failures: {@value FailureTypes#INVALID_TRAIN_REQUEST} (message starts with the
 * field path), {@value FailureTypes#INVALID_HYPERPARAMETER} (loss became NaN), {@value
 * FailureTypes#CORRUPT_CHECKPOINT}. Runs are serialized per JVM (see {@link Trainer}); give the
 * worker one training slot.
 */
public final class TrainingActivitiesImpl implements TrainingActivities {

  private static final Logger log = LoggerFactory.getLogger(TrainingActivitiesImpl.class);

  private final DatasetReader reader;
  private final ModelZoo registry;
  private final Duration heartbeatInterval;
  private final WorkerDefaults defaults;
  private CachedSplit cached;

  public TrainingActivitiesImpl(DatasetReader reader) {
    this(reader, ModelZoo.withBuiltIns(), Duration.ofSeconds(1));
  }

  public TrainingActivitiesImpl(
      DatasetReader reader, ModelZoo registry, Duration heartbeatInterval) {
    this(reader, registry, heartbeatInterval, WorkerDefaults.NONE);
  }

  /** {@code defaults} fill in what a request leaves empty: checkpoint root and thread count. */
  public TrainingActivitiesImpl(
      DatasetReader reader,
      ModelZoo registry,
      Duration heartbeatInterval,
      WorkerDefaults defaults) {
    this.reader = reader;
    this.registry = registry;
    this.heartbeatInterval = heartbeatInterval;
    this.defaults = defaults;
  }

  /**
   * This worker's defaults for fields a request may leave empty; the workflow cannot know a
   * worker's storage root or core count.
   */
  public record WorkerDefaults(String checkpointRoot, int threads) {
    public static final WorkerDefaults NONE = new WorkerDefaults("", 0);

    TrainRequest apply(TrainRequest r) {
      TrainRequest.Builder b = r.toBuilder();
      if (r.getCheckpointRoot().isBlank()) {
        b.setCheckpointRoot(checkpointRoot);
      }
      if (r.getThreads() == 0) {
        b.setThreads(threads);
      }
      return b.build();
    }
  }

  @Override
  public TrainResult train(TrainRequest incoming) {
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    // Reading the table and loading libtorch in a fresh worker can outlast a short heartbeat
    // timeout: keep the attempt alive, re-sending the previous attempt's progress (and so its
    // checkpoint) until the first batch reports its own.
    try (Heartbeats heartbeats = new Heartbeats(ctx, heartbeatInterval, previousProgress(ctx))) {
      try {
        return train(defaults.apply(incoming), ctx, heartbeats);
      } catch (ApplicationFailure f) {
        throw withWrittenCheckpoints(f, heartbeats.written());
      } catch (KeelFailure f) {
        throw withWrittenCheckpoints(ActivityBoundary.toTemporal(f), heartbeats.written());
      }
    }
  }

  /**
   * A failed step may have committed checkpoints before it failed: they travel as the failure's
   * details ({@link TrainProgress#getWrittenCheckpointsList()}), so the trial can hand them to the
   * catalog and GC instead of leaving them on disk unknown.
   */
  private static ApplicationFailure withWrittenCheckpoints(
      ApplicationFailure f, List<CheckpointRef> written) {
    if (written.isEmpty()) {
      return f;
    }
    return ApplicationFailure.newBuilder(f)
        .setDetails(TrainProgress.newBuilder().addAllWrittenCheckpoints(written).build())
        .build();
  }

  private TrainResult train(
      TrainRequest request, ActivityExecutionContext ctx, Heartbeats heartbeats) {
    LabeledExamples data = read(request.getData());
    TrainingPlan plan;
    try {
      plan = TrainingPlan.from(request, registry, data);
      plan =
          plan.fittedTo(
              DataShape.of(
                  plan.tableName(),
                  data)); // a model that does not fit the table fails here, before libtorch
    } catch (InvalidFieldException e) {
      throw invalidRequest(e);
    }
    Optional<CheckpointRef> fromHeartbeat = lastCheckpointOfPreviousAttempt(ctx);
    if (fromHeartbeat.isPresent()) {
      plan = plan.withStartFrom(fromHeartbeat.get());
      log.info(
          "trial {}: attempt {} resumes from its heartbeat checkpoint {} (batch {})",
          plan.trialId(),
          ctx.getInfo().getAttempt(),
          fromHeartbeat.get().getUri(),
          fromHeartbeat.get().getBatches());
    }
    RankInfo me =
        RankInfo.newBuilder()
            .setRank(request.getGang().getRank())
            .setWorkerIdentity(RankIdentity.workerIdentity())
            .setHost(RankIdentity.host())
            .setDevice(Engine.getInstance().defaultDevice().toString())
            .build();
    try {
      TrainResult result =
          new Trainer(plan, data, heartbeats, gangJoin(request, plan, me, ctx)).run().toProto();
      String last = result.getCheckpoint().getUuid();
      TrainResult.Builder out = result.toBuilder();
      if (!plan.modelSpec().getTorchscriptSha256().isEmpty()) {
        out.setModel(plan.modelSpec());
      }
      return out.addAllPeriodicCheckpoints(
              heartbeats.written().stream().filter(c -> !c.getUuid().equals(last)).toList())
          .setAttempt(ctx.getInfo().getAttempt())
          .addRanks(me)
          .build();
    } catch (InvalidFieldException e) {
      throw invalidRequest(e);
    } catch (CorruptCheckpointException e) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT, e);
    } catch (CollectiveException e) {
      // a peer died or hung: the workflow restarts the gang, from the checkpoints that ride along
      throw ApplicationFailure.newFailureWithCause(
          "rank "
              + request.getGang().getRank()
              + " of gang "
              + request.getGang().getGangId()
              + ": "
              + e.getMessage(),
          CollectiveException.class.getSimpleName(),
          e);
    } catch (IOException e) {
      // as Activity.wrap would, but an ApplicationFailure, so the written checkpoints can ride
      // along
      throw ApplicationFailure.newFailureWithCause(
          e.getMessage() != null ? e.getMessage() : e.toString(), e.getClass().getName(), e);
    }
  }

  /** A single rank trains alone; a rank of a gang joins it once its model is built. */
  private static GangJoin gangJoin(
      TrainRequest request, TrainingPlan plan, RankInfo me, ActivityExecutionContext ctx) {
    GangSpec gang = request.getGang();
    if (!request.hasGang() || gang.getWorldSize() <= 1) {
      return GangJoin.SINGLE;
    }
    if (gang.getRank() < 0 || gang.getRank() >= gang.getWorldSize()) {
      throw invalidRequest(
          new InvalidFieldException(
              "gang.rank", "must be in [0, " + gang.getWorldSize() + "), got " + gang.getRank()));
    }
    return parameters -> {
      Fingerprint fingerprint =
          Fingerprint.builder()
              .set(
                  "model",
                  plan.modelSpec().getName().isEmpty()
                      ? plan.modelSpec().getClass_()
                      : plan.modelSpec().getName())
              .set(
                  "model_file",
                  plan.modelSpec().getTorchscriptFile()
                      + "@"
                      + plan.modelSpec().getTorchscriptSha256())
              .set("hyperparameters", new TreeMap<>(plan.hyperparameters().asMap()))
              .set("data", plan.data().getUri() + "@" + plan.data().getVersion())
              .set("validation", plan.validation().describe())
              .set("seed", plan.seed())
              .set("target_batches", plan.targetBatches())
              .set("start_from", plan.startFrom().map(CheckpointRef::getUuid).orElse("scratch"))
              .set("threads", plan.threads())
              .set("parameters", parameters)
              .build();
      try {
        NativeCollectives.load();
      } catch (CollectiveException e) {
        throw ApplicationFailure.newFailureWithCause(
            e.getMessage(), FailureTypes.COLLECTIVES_UNAVAILABLE, e);
      }
      return GangMember.join(
          ctx.getWorkflowClient(),
          ctx.getInfo().getWorkflowId(),
          gang,
          me,
          me.getHost(),
          fingerprint,
          () -> Thread.currentThread().isInterrupted());
    };
  }

  private static Optional<TrainProgress> previousProgress(ActivityExecutionContext ctx) {
    try {
      return ctx.getHeartbeatDetails(TrainProgress.class);
    } catch (RuntimeException e) {
      log.warn("unreadable heartbeat details of a previous attempt; ignoring them", e);
      return Optional.empty();
    }
  }

  private Optional<CheckpointRef> lastCheckpointOfPreviousAttempt(ActivityExecutionContext ctx) {
    Optional<TrainProgress> details = previousProgress(ctx);
    if (details.isEmpty()
        || !details.get().hasLastCheckpoint()
        || details.get().getLastCheckpoint().getUri().isBlank()) {
      return Optional.empty();
    }
    CheckpointRef ref = details.get().getLastCheckpoint();
    try {
      VerifiedCheckpoint.open(ref); // fall back to start_from rather than fail on a bad one
      return Optional.of(ref);
    } catch (IOException | RuntimeException e) {
      log.warn(
          "heartbeat checkpoint {} is unusable ({}); starting from start_from or scratch",
          ref.getUri(),
          e.getMessage());
      return Optional.empty();
    }
  }

  private synchronized LabeledExamples read(TableRef table) {
    if (cached != null && cached.table.equals(table)) {
      return cached.data;
    }
    LabeledExamples data;
    try {
      data = reader.readExamples(table, Splits.TRAIN);
    } catch (IllegalArgumentException e) {
      throw invalidRequest(new InvalidFieldException("data", e.getMessage(), e));
    }
    cached = new CachedSplit(table, data);
    return data;
  }

  private static ApplicationFailure invalidRequest(InvalidFieldException e) {
    return ApplicationFailure.newNonRetryableFailureWithCause(
        e.getMessage(), FailureTypes.INVALID_TRAIN_REQUEST, e);
  }

  private record CachedSplit(TableRef table, LabeledExamples data) {}

  /**
   * Sends {@link TrainProgress} as heartbeat details, throttled except right after checkpoints.
   * Until the first progress report a daemon thread heartbeats {@code previous} three times per
   * heartbeat timeout, so preparing (reading data, loading libtorch, verifying the checkpoint)
   * never looks like a dead worker, and a kill meanwhile still leaves the previous attempt's
   * checkpoint for the next one.
   */
  static final class Heartbeats implements ProgressListener, AutoCloseable {
    private final ActivityExecutionContext ctx;
    private final long intervalNanos;
    private final Object lock = new Object();
    private final ScheduledExecutorService keepAlive;
    private final List<CheckpointRef> written = new ArrayList<>();
    private boolean training;
    private long last = System.nanoTime();

    /**
     * Heartbeats of one attempt.
     *
     * @param previous the previous attempt's details, kept alive while preparing
     */
    Heartbeats(ActivityExecutionContext ctx, Duration interval, Optional<TrainProgress> previous) {
      this.ctx = ctx;
      this.intervalNanos = interval.toNanos();
      previous.ifPresent(p -> written.addAll(p.getWrittenCheckpointsList()));
      Duration timeout = ctx.getInfo().getHeartbeatTimeout();
      if (timeout == null || timeout.isZero()) {
        keepAlive = null;
        return;
      }
      // Three beats per heartbeat timeout: only a preparation that could outlast the timeout sends
      // any.
      long period = Math.max(100, timeout.toMillis() / 3);
      TrainProgress details = previous.orElse(TrainProgress.getDefaultInstance());
      keepAlive =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "train-heartbeat-keepalive");
                t.setDaemon(true);
                return t;
              });
      // the task catches what a heartbeat throws, so the schedule never ends by itself; close()
      // ends it
      ScheduledFuture<?> unused =
          keepAlive.scheduleWithFixedDelay(
              () -> {
                synchronized (lock) {
                  if (training) {
                    return;
                  }
                  try {
                    ctx.heartbeat(details);
                  } catch (RuntimeException e) {
                    // canceled or timed out: the training thread learns it from its first own
                    // heartbeat
                  }
                }
              },
              period,
              period,
              TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
      if (keepAlive != null) {
        keepAlive.shutdownNow();
      }
    }

    @Override
    public void onProgress(TrainingProgress p) {
      long now = System.nanoTime();
      synchronized (lock) {
        if (!training) {
          training = true;
          close();
        }
      }
      if (p.checkpointJustWritten() && p.lastCheckpoint().isPresent()) {
        CheckpointRef c = p.lastCheckpoint().get();
        if (written.stream().noneMatch(w -> w.getUuid().equals(c.getUuid()))) {
          written.add(c);
        }
      }
      if (!p.checkpointJustWritten() && now - last < intervalNanos) {
        return;
      }
      last = now;
      TrainProgress.Builder details =
          TrainProgress.newBuilder()
              .setBatches(p.batches())
              .setTargetBatches(p.targetBatches())
              .setLoss(Double.isFinite(p.loss()) ? p.loss() : 0)
              .setEpoch(p.epoch())
              .setBatchesPerSecond(p.batchesPerSecond());
      p.lastCheckpoint().ifPresent(details::setLastCheckpoint);
      details.addAllWrittenCheckpoints(written);
      ctx.heartbeat(details.build());
    }

    /** Every checkpoint committed by this activity so far, over all attempts, oldest first. */
    List<CheckpointRef> written() {
      return List.copyOf(written);
    }
  }
}
