package dev.keel.gpu.optim;

import ai.djl.training.tracker.Tracker;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.TrainingHyperparameters;
import java.util.Locale;

/** Builds the optimizer a trial's hyperparameters ask for. */
public final class Optimizers {
  private Optimizers() {}

  /**
   * @throws InvalidFieldException for an unknown optimizer or an impossible value
   */
  public static ResumableOptimizer fromHyperparameters(Hyperparameters hp) {
    double lr = hp.getDouble(TrainingHyperparameters.LR);
    double wd = hp.getDouble(TrainingHyperparameters.WEIGHT_DECAY);
    if (!(lr > 0) || Double.isInfinite(lr)) {
      throw new InvalidFieldException("hyperparameters.lr", "must be a positive number, got " + lr);
    }
    if (!(wd >= 0) || Double.isInfinite(wd)) {
      throw new InvalidFieldException("hyperparameters.weight_decay", "must be >= 0, got " + wd);
    }
    Tracker rate = learningRate(hp, lr);
    String name = hp.getString(TrainingHyperparameters.OPTIMIZER).trim().toLowerCase(Locale.ROOT);
    switch (name) {
      case "adam":
        return new ResumableAdam(rate, (float) wd);
      case "sgd":
        {
          double m = hp.getDouble(TrainingHyperparameters.MOMENTUM);
          if (!(m >= 0 && m < 1)) {
            throw new InvalidFieldException(
                "hyperparameters.momentum", "must be in [0, 1), got " + m);
          }
          return new ResumableSgd(rate, (float) m, (float) wd);
        }
      default:
        throw new InvalidFieldException(
            "hyperparameters.optimizer", "unknown optimizer '" + name + "' (accepts: adam, sgd)");
    }
  }

  /**
   * {@code constant}: {@code lr} throughout. {@code cosine}: from {@code lr} down to {@code lr_min}
   * along a half cosine over the first {@code lr_decay_batches} updates, then {@code lr_min}. The
   * schedule is counted in the optimizer's own (saved) updates, so a search's trials train on its
   * first part and a final training warm-started from one of them goes on along the same curve.
   */
  private static Tracker learningRate(Hyperparameters hp, double lr) {
    String schedule =
        hp.getString(TrainingHyperparameters.LR_SCHEDULE).trim().toLowerCase(Locale.ROOT);
    switch (schedule) {
      case "constant":
        return Tracker.fixed((float) lr);
      case "cosine":
        {
          long batches = (long) hp.getDouble(TrainingHyperparameters.LR_DECAY_BATCHES);
          double min = hp.getDouble(TrainingHyperparameters.LR_MIN);
          if (batches < 1 || batches > Integer.MAX_VALUE) {
            throw new InvalidFieldException(
                "hyperparameters.lr_decay_batches",
                "must be a positive number of batches with lr_schedule cosine, got " + batches);
          }
          if (!(min >= 0 && min < lr)) {
            throw new InvalidFieldException(
                "hyperparameters.lr_min", "must be in [0, lr) = [0, " + lr + "), got " + min);
          }
          return Tracker.cosine()
              .setBaseValue((float) lr)
              .optFinalValue((float) min)
              .setMaxUpdates((int) batches)
              .build();
        }
      default:
        throw new InvalidFieldException(
            "hyperparameters.lr_schedule",
            "unknown schedule '" + schedule + "' (accepts: constant, cosine)");
    }
  }
}
