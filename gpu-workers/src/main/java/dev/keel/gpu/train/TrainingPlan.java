package dev.keel.gpu.train;

import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.FashionCnn;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.model.TrainingHyperparameters;
import dev.keel.gpu.model.torchscript.TorchScriptModel;
import dev.keel.gpu.optim.Optimizers;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.tables.dataset.LabeledExamples;
import java.util.Optional;

/**
 * A validated {@link TrainRequest}: everything {@link Trainer} needs, with defaults filled in.
 *
 * @param validation which rows of the train split are held out for validation
 * @param checkpointEveryBatches 0 = only at the end
 * @param startFrom empty = from scratch
 */
public record TrainingPlan(
    String experimentId,
    String trialId,
    TableRef data,
    ValidationHoldOut validation,
    ModelSpec modelSpec,
    KeelModel model,
    Hyperparameters hyperparameters,
    long seed,
    long targetBatches,
    long checkpointEveryBatches,
    CheckpointStorage checkpointStorage,
    Optional<CheckpointRef> startFrom,
    int threads) {

  public static final int DEFAULT_THREADS = 1;

  /**
   * A request whose {@code target_length} and {@code checkpoint_period} (batches, records or
   * epochs) become batches here. Only the worker can convert them: it alone knows the model's batch
   * size default and how many training rows the pinned table version holds after the validation
   * hold-out.
   *
   * @param trainSplit the train split, before the validation hold-out
   * @throws InvalidFieldException naming the first unusable field of the request
   */
  public static TrainingPlan from(TrainRequest r, ModelZoo registry, LabeledExamples trainSplit) {
    if (!r.hasTargetLength() && !r.hasCheckpointPeriod()) {
      return from(r, registry);
    }
    // every other field is checked, and the batch size resolved, before the lengths
    TrainingPlan checked = from(r.toBuilder().setTargetBatches(1).build(), registry);
    return from(
        resolveLengths(r, checked.batchSize(), checked.validation().trainingRows(trainSplit)),
        registry);
  }

  /**
   * A request in batches already ({@code target_batches}, {@code checkpoint_every_batches}).
   *
   * @throws InvalidFieldException naming the first unusable field of the request
   */
  public static TrainingPlan from(TrainRequest r, ModelZoo registry) {
    require(r.getExperimentId(), "experiment_id");
    require(r.getTrialId(), "trial_id");
    double vf =
        r.hasValidation() && r.getValidation().hasFraction()
            ? r.getValidation().getFraction()
            : r.getValidationFraction() == 0
                ? ConfigDefaults.VALIDATION_FRACTION
                : r.getValidationFraction();
    if (!(vf > 0 && vf < 1)) {
      throw new InvalidFieldException(
          r.hasValidation() ? "validation.fraction" : "validation_fraction",
          "must be in (0, 1), got " + vf);
    }
    if (r.getTargetBatches() <= 0) {
      throw new InvalidFieldException("target_batches", "must be > 0, got " + r.getTargetBatches());
    }
    if (r.getCheckpointEveryBatches() < 0) {
      throw new InvalidFieldException(
          "checkpoint_every_batches",
          "must be >= 0 (0 = only at the end), got " + r.getCheckpointEveryBatches());
    }
    if (r.getThreads() < 0 || r.getThreads() > 256) {
      throw new InvalidFieldException(
          "threads", "must be in [0, 256] (0 = " + DEFAULT_THREADS + "), got " + r.getThreads());
    }
    require(r.getCheckpointRoot(), "checkpoint_root");
    CheckpointStorage storage;
    try {
      storage = CheckpointStorage.forRoot(r.getCheckpointRoot());
    } catch (RuntimeException e) {
      throw new InvalidFieldException("checkpoint_root", e.getMessage(), e);
    }
    ModelSpec spec = r.hasModel() ? r.getModel() : ModelSpec.getDefaultInstance();
    if (spec.getName().isBlank() && spec.getClass_().isBlank() && spec.getTorchscript().isBlank()) {
      spec = spec.toBuilder().setName(FashionCnn.NAME).build();
    }
    KeelModel model = registry.resolve(spec);
    Hyperparameters hp =
        Hyperparameters.resolve(model, spec.getParams().getFieldsMap(), r.getHparamsMap());
    int batchSize = hp.getInt(TrainingHyperparameters.BATCH_SIZE);
    if (batchSize < 1 || batchSize > 1 << 16) {
      throw new InvalidFieldException(
          "hyperparameters.batch_size", "must be in [1, 65536], got " + batchSize);
    }
    Optimizers.fromHyperparameters(hp).close(); // validates lr, optimizer, momentum, weight_decay
    model.check(hp);
    if (model instanceof TorchScriptModel torchScript) {
      spec = torchScript.pinned(hp);
    }
    Optional<CheckpointRef> start = Optional.empty();
    if (r.hasStartFrom()) {
      if (r.getStartFrom().getUri().isBlank()) {
        throw new InvalidFieldException(
            "start_from.uri", "must not be empty when start_from is set");
      }
      start = Optional.of(r.getStartFrom());
    }
    return new TrainingPlan(
        r.getExperimentId(),
        r.getTrialId(),
        r.getData(),
        ValidationHoldOut.of(r),
        spec,
        model,
        hp,
        r.getSeed(),
        r.getTargetBatches(),
        r.getCheckpointEveryBatches(),
        storage,
        start,
        r.getThreads() == 0 ? DEFAULT_THREADS : r.getThreads());
  }

  /** The request with its lengths in batches: the target counts from {@code base_batches}. */
  static TrainRequest resolveLengths(TrainRequest r, int batchSize, long trainingRows) {
    TrainRequest.Builder b = r.toBuilder();
    if (r.hasTargetLength()) {
      long batches = batches("target_length", r.getTargetLength(), trainingRows, batchSize);
      b.clearTargetLength().setTargetBatches(r.getBaseBatches() + batches);
    }
    if (r.hasCheckpointPeriod()) {
      b.clearCheckpointPeriod()
          .setCheckpointEveryBatches(
              batches("checkpoint_period", r.getCheckpointPeriod(), trainingRows, batchSize));
    }
    return b.build();
  }

  private static long batches(String field, Length length, long trainingRows, int batchSize) {
    TrainingLength.problem(length, field)
        .ifPresent(
            p -> {
              throw new InvalidFieldException(p.path(), p.message());
            });
    long batches = TrainingLength.of(length).toBatches(trainingRows, batchSize);
    if (batches <= 0) {
      throw new InvalidFieldException(
          field,
          "must be > 0 batches, got "
              + TrainingLength.of(length)
              + " of "
              + trainingRows
              + " training rows");
    }
    return batches;
  }

  private static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new InvalidFieldException(field, "required");
    }
  }

  /**
   * The plan for training on {@code data}: the model checks that it fits the table and records what
   * it takes from it (e.g. {@code tabular_mlp}'s feature and class counts) in the hyperparameters,
   * which checkpoints and gang fingerprints carry. Fitting a fitted plan to the same table changes
   * nothing.
   *
   * @throws InvalidFieldException ({@code data}) naming the table and the model when they do not
   *     fit
   */
  public TrainingPlan fittedTo(DataShape shape) {
    Hyperparameters fitted =
        shape.withInputNormalization(shape.withTaskLoss(model.fitTo(hyperparameters, shape)));
    if (fitted.asMap().equals(hyperparameters.asMap())) {
      return this;
    }
    model.check(fitted); // what the table set
    return new TrainingPlan(
        experimentId,
        trialId,
        data,
        validation,
        modelSpec,
        model,
        fitted,
        seed,
        targetBatches,
        checkpointEveryBatches,
        checkpointStorage,
        startFrom,
        threads);
  }

  /** The pinned table as messages name it: {@code <uri> v<version>}. */
  public String tableName() {
    return data.getUri() + " v" + data.getVersion();
  }

  public int batchSize() {
    return hyperparameters.getInt(TrainingHyperparameters.BATCH_SIZE);
  }

  public TrainingPlan withStartFrom(CheckpointRef checkpoint) {
    return new TrainingPlan(
        experimentId,
        trialId,
        data,
        validation,
        modelSpec,
        model,
        hyperparameters,
        seed,
        targetBatches,
        checkpointEveryBatches,
        checkpointStorage,
        Optional.of(checkpoint),
        threads);
  }

  public TrainingPlan withTargetBatches(long target) {
    return new TrainingPlan(
        experimentId,
        trialId,
        data,
        validation,
        modelSpec,
        model,
        hyperparameters,
        seed,
        target,
        checkpointEveryBatches,
        checkpointStorage,
        startFrom,
        threads);
  }
}
