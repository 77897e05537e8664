package dev.keel.gpu.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.checkpoint.ModelCheckpoints;
import dev.keel.gpu.gang.GangJoin;
import dev.keel.gpu.gang.GradientExchange;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.InputNormalization;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.TrainingHyperparameters;
import dev.keel.storage.checkpoint.BackgroundCheckpointWriter;
import dev.keel.storage.checkpoint.CheckpointMetadata;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trains one trial from scratch or from a checkpoint to {@code targetBatches}: checkpoints every
 * {@code checkpointEveryBatches} and at the end, validates at the end. Checkpoints are snapshots
 * written by a {@link BackgroundCheckpointWriter}, so the training thread does not wait for disks
 * or S3; the final checkpoint is written while validation runs.
 *
 * <p>Deterministic for a given seed and thread count: parameters are initialized from a seeded
 * generator, batch {@code b} is a pure function of (seed, b) ({@link BatchOrder}) and libtorch's
 * generator is re-seeded from (seed, b) before each batch (dropout), so resuming from a checkpoint
 * at batch k gives bit-identical parameters to an uninterrupted run.
 *
 * <p>libtorch's generator, thread count and gradient mode are process-wide and DJL allows one
 * active gradient collector per JVM, so runs in one JVM are serialized: all of them run on the
 * {@link TrainerThread}.
 */
public final class Trainer {
  private static final Logger log = LoggerFactory.getLogger(Trainer.class);
  private static final int LOSS_WINDOW = 50;

  /**
   * A mean cross-entropy above this has diverged (ln 10 ≈ 2.3 at init); Adam with an absurd
   * learning rate keeps the loss finite (~1e20) but useless, so it fails like NaN does.
   */
  public static final double DIVERGED_LOSS = 1e6;

  private final TrainingPlan plan;
  private final LabeledExamples trainSplit;
  private final ProgressListener listener;
  private final GangJoin gang;
  private volatile boolean abandoned;

  /**
   * @param trainSplit the whole "train" split; the plan's {@link ValidationHoldOut} holds out the
   *     validation rows
   */
  public Trainer(TrainingPlan plan, LabeledExamples trainSplit, ProgressListener listener) {
    this(plan, trainSplit, listener, GangJoin.SINGLE);
  }

  /**
   * One rank of a gang, joined once the model is built: each global batch of {@code batch_size}
   * rows is cut into equal consecutive shares, rank r training on share r, so over an epoch the
   * ranks read disjoint rows that together cover the split. Only rank 0 writes checkpoints and
   * validates.
   *
   * @throws InvalidFieldException ({@code data}) when the model does not fit the table (see {@link
   *     TrainingPlan#fittedTo})
   */
  public Trainer(
      TrainingPlan plan, LabeledExamples trainSplit, ProgressListener listener, GangJoin gang) {
    this.plan = plan.fittedTo(DataShape.of(plan.tableName(), trainSplit));
    this.trainSplit = InputNormalization.applied(this.plan.hyperparameters(), trainSplit);
    this.listener = listener;
    this.gang = gang;
  }

  /**
   * @throws KeelFailure of type {@value FailureTypes#INVALID_HYPERPARAMETER} (non-retryable) when
   *     the loss becomes NaN, infinite or above {@link #DIVERGED_LOSS}
   * @throws dev.keel.storage.checkpoint.CorruptCheckpointException if the start checkpoint is bad
   * @throws InvalidFieldException if the data does not fit the plan (e.g. batch size)
   */
  public TrainingOutcome run() throws IOException {
    return TrainerThread.call(this::runOnTrainerThread, () -> abandoned = true);
  }

  private TrainingOutcome runOnTrainerThread() throws IOException {
    stopIfAbandoned(0);
    long started = System.nanoTime();
    setIntraOpThreads(plan.threads());
    TrainValidationSplit split = plan.validation().split(trainSplit);
    if (plan.batchSize() > split.train().size()) {
      throw new InvalidFieldException(
          "hyperparameters.batch_size",
          plan.batchSize() + " exceeds the " + split.train().size() + " training rows");
    }
    BatchOrder order = new BatchOrder(plan.seed(), split.train().size(), plan.batchSize());
    try (TrainableModel model =
            TrainableModel.initialize(plan.model(), plan.hyperparameters(), plan.seed());
        GradientExchange exchange = gang.join(model.parameterCount());
        BackgroundCheckpointWriter writer =
            new BackgroundCheckpointWriter(
                plan.checkpointStorage(), "checkpoint-writer-" + plan.trialId())) {
      if (plan.batchSize() % exchange.size() != 0) {
        throw new InvalidFieldException(
            "hyperparameters.batch_size",
            plan.batchSize()
                + " cannot be split evenly over resources.slots_per_trial = "
                + exchange.size()
                + " ranks");
      }
      // from the training rows only, so validation and test rows stay unseen; a resume loads the
      // same values
      plan.model().fitInputs(model.block(), split.train());
      Augmentation augmentation =
          Augmentation.of(plan.hyperparameters(), split.train(), plan.seed());
      boolean writes = exchange.rank() == 0;
      long batch = 0;
      Optional<CheckpointRef> last = Optional.empty();
      if (plan.startFrom().isPresent()) {
        VerifiedCheckpoint start = VerifiedCheckpoint.open(plan.startFrom().get());
        SameModelFile.require(plan.modelSpec(), start);
        model.restore(start, true);
        batch = start.metadata().batches();
        last = Optional.of(start.ref());
        warnIfOrderDiffers(start.metadata(), split.train().size());
        log.info("trial {}: resuming from {} at batch {}", plan.trialId(), start.uri(), batch);
      }
      // Identical anyway (same seed or checkpoint); the copy makes sure no rank drifts from rank 0.
      exchange.broadcastFromRankZero(model.parameterArrays());
      long firstBatch = batch;
      int trainExamples = split.train().size();
      LossWindow losses = new LossWindow(LOSS_WINDOW);
      while (batch < plan.targetBatches()) {
        stopIfAbandoned(batch);
        int[] rows = share(order.indices(batch), exchange);
        Engine.getInstance().setRandomSeed(Seeds.batch(plan.seed(), batch, exchange.rank()));
        float loss;
        try (NDManager step = model.manager().newSubManager()) {
          loss =
              model.trainStep(
                  augmentation.inputs(step, split.train(), rows, batch),
                  Batches.labels(step, split.train(), rows),
                  exchange);
        }
        batch++;
        TrainingMeters.SAMPLES.increment(rows.length);
        if (!Float.isFinite(loss) || loss > DIVERGED_LOSS) {
          throw invalidLoss(loss, batch);
        }
        losses.add(loss);
        boolean due =
            writes
                && plan.checkpointEveryBatches() > 0
                && batch % plan.checkpointEveryBatches() == 0
                && batch < plan.targetBatches();
        // The snapshot is taken here, at this batch; files, checksums and fsync/upload happen in
        // the
        // background, and the checkpoint is reported (heartbeated) only once it is committed.
        Optional<CheckpointRef> committed =
            due
                ? writer.submit(
                    metadata(
                        UUID.randomUUID().toString(),
                        batch,
                        trainExamples,
                        Map.of(Metrics.TRAIN_LOSS, losses.mean())),
                    ModelCheckpoints.snapshot(model.block(), model.optimizer()))
                : writer.poll();
        if (committed.isPresent()) {
          last = committed;
        }
        listener.onProgress(
            new TrainingProgress(
                batch,
                plan.targetBatches(),
                losses.mean(),
                order.epochOf(batch - 1),
                last,
                (batch - firstBatch) / seconds(started),
                committed.isPresent()));
      }
      if (!writes) {
        log.info(
            "trial {}: rank {} of {} trained to batch {} in {} s",
            plan.trialId(),
            exchange.rank(),
            exchange.size(),
            batch,
            seconds(started));
        return new TrainingOutcome(
            last.orElse(null),
            Map.of(),
            batch,
            losses.count() > 0 ? losses.mean() : Double.NaN,
            seconds(started));
      }
      // Nothing trained (resumed at the target): the start checkpoint is the result.
      boolean saveFinal = batch > firstBatch || last.isEmpty();
      String finalUuid = UUID.randomUUID().toString();
      if (saveFinal) {
        Optional<CheckpointRef> committed =
            writer.submitAwaitingMetadata(
                plan.experimentId(),
                plan.trialId(),
                finalUuid,
                ModelCheckpoints.snapshot(model.block(), model.optimizer()));
        if (committed.isPresent()) {
          last = committed;
          listener.onProgress(progress(batch, losses, order, last, firstBatch, started));
        }
      }
      Evaluation validation =
          Evaluation.of(model, split.validation()); // while the final checkpoint is written
      Map<String, Double> metrics = new HashMap<>(validation.metrics());
      if (losses.count() > 0) {
        metrics.put(Metrics.TRAIN_LOSS, losses.mean());
      }
      CheckpointRef result;
      if (saveFinal) {
        result = writer.finish(metadata(finalUuid, batch, trainExamples, metrics));
        listener.onProgress(
            progress(batch, losses, order, Optional.of(result), firstBatch, started));
      } else {
        result = last.get().toBuilder().putAllMetrics(metrics).build();
      }
      log.info(
          "trial {}: {} batches on {}, validation {} in {} s",
          plan.trialId(),
          batch,
          model.manager().getDevice(),
          validation.byMetric(),
          seconds(started));
      return new TrainingOutcome(
          result,
          validation.metrics(),
          batch,
          losses.count() > 0 ? losses.mean() : Double.NaN,
          seconds(started));
    }
  }

  /** This rank's consecutive share of a global batch. */
  private static int[] share(int[] global, GradientExchange exchange) {
    if (exchange.size() == 1) {
      return global;
    }
    int n = global.length / exchange.size();
    return Arrays.copyOfRange(global, exchange.rank() * n, (exchange.rank() + 1) * n);
  }

  private TrainingProgress progress(
      long batch,
      LossWindow losses,
      BatchOrder order,
      Optional<CheckpointRef> committed,
      long firstBatch,
      long started) {
    return new TrainingProgress(
        batch,
        plan.targetBatches(),
        losses.mean(),
        order.epochOf(Math.max(0, batch - 1)),
        committed,
        (batch - firstBatch) / seconds(started),
        true);
  }

  private CheckpointMetadata metadata(
      String uuid, long batch, int trainExamples, Map<String, Double> metrics) {
    return new CheckpointMetadata(
        uuid,
        plan.experimentId(),
        plan.trialId(),
        plan.modelSpec(),
        plan.hyperparameters().asProto(),
        plan.seed(),
        batch,
        plan.batchSize(),
        trainExamples,
        BatchOrder.SCHEME,
        plan.data(),
        plan.threads(),
        metrics,
        Instant.now().toString());
  }

  private void stopIfAbandoned(long batch) throws InterruptedIOException {
    if (abandoned) {
      throw new InterruptedIOException(
          "trial "
              + plan.trialId()
              + ": training abandoned at batch "
              + batch
              + " (the activity thread was interrupted)");
    }
  }

  private KeelFailure invalidLoss(float loss, long batch) {
    String what =
        Float.isNaN(loss)
            ? "is NaN"
            : Float.isInfinite(loss) ? "is infinite" : "diverged to " + loss;
    return KeelFailure.nonRetryable(
        String.format(
            "trial %s: loss %s at batch %d (lr=%s): invalid hyperparameters",
            plan.trialId(),
            what,
            batch,
            plan.hyperparameters().asMap().get(TrainingHyperparameters.LR)),
        FailureTypes.INVALID_HYPERPARAMETER);
  }

  private void warnIfOrderDiffers(CheckpointMetadata md, int trainExamples) {
    if (!Objects.equals(md.experimentId(), plan.experimentId())
        || !Objects.equals(md.trialId(), plan.trialId())) {
      // a fork (fine-tuning, a warm start, PBT): another trial's checkpoint, often on other data;
      // nothing to resume
      log.info(
          "trial {}: starting from checkpoint {} of {} {} ({} rows then, {} now)",
          plan.trialId(),
          md.uuid(),
          md.experimentId(),
          md.trialId(),
          md.trainExamples(),
          trainExamples);
      return;
    }
    if (md.batchSize() != plan.batchSize()
        || md.trainExamples() != trainExamples
        || md.seed() != plan.seed()
        || !BatchOrder.SCHEME.equals(md.shuffle())
        || md.threads() != plan.threads()) {
      log.warn(
          "trial {}: checkpoint {} was written with seed {}, batch size {}, {} rows, {} threads, order {};"
              + " continuing with seed {}, batch size {}, {} rows, {} threads: not bit-identical to an uninterrupted run",
          plan.trialId(),
          md.uuid(),
          md.seed(),
          md.batchSize(),
          md.trainExamples(),
          md.threads(),
          md.shuffle(),
          plan.seed(),
          plan.batchSize(),
          trainExamples,
          plan.threads());
    }
  }

  /** Sets libtorch's intra-op thread count (process-wide). */
  static void setIntraOpThreads(int threads) {
    Engine.getInstance(); // loads libtorch
    if (JniUtils.getNumThreads() != threads) {
      JniUtils.setNumThreads(threads);
    }
  }

  private static double seconds(long startNanos) {
    return Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
  }

  /** Mean of the last n losses. */
  private static final class LossWindow {
    private final double[] values;
    private int count;
    private int next;

    LossWindow(int n) {
      values = new double[n];
    }

    void add(double v) {
      values[next] = v;
      next = (next + 1) % values.length;
      count = Math.min(count + 1, values.length);
    }

    int count() {
      return count;
    }

    double mean() {
      double s = 0;
      for (int i = 0; i < count; i++) {
        s += values[i];
      }
      return count == 0 ? Double.NaN : s / count;
    }
  }
}
