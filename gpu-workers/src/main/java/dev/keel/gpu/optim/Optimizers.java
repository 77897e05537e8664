package dev.keel.gpu.optim;

import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.TrainingHyperparameters;

/** Builds the optimizer a trial's hyperparameters ask for. */
public final class Optimizers {
  private Optimizers() {}

  /** @throws InvalidFieldException for an unknown optimizer or an impossible value */
  public static ResumableOptimizer fromHyperparameters(Hyperparameters hp) {
    double lr = hp.getDouble(TrainingHyperparameters.LR);
    double wd = hp.getDouble(TrainingHyperparameters.WEIGHT_DECAY);
    if (!(lr > 0) || Double.isInfinite(lr)) {
      throw new InvalidFieldException("hyperparameters.lr", "must be a positive number, got " + lr);
    }
    if (!(wd >= 0) || Double.isInfinite(wd)) {
      throw new InvalidFieldException("hyperparameters.weight_decay", "must be >= 0, got " + wd);
    }
    String name = hp.getString(TrainingHyperparameters.OPTIMIZER).trim().toLowerCase(java.util.Locale.ROOT);
    switch (name) {
      case "adam":
        return new ResumableAdam((float) lr, (float) wd);
      case "sgd": {
        double m = hp.getDouble(TrainingHyperparameters.MOMENTUM);
        if (!(m >= 0 && m < 1)) {
          throw new InvalidFieldException("hyperparameters.momentum", "must be in [0, 1), got " + m);
        }
        return new ResumableSgd((float) lr, (float) m, (float) wd);
      }
      default:
        throw new InvalidFieldException(
            "hyperparameters.optimizer", "unknown optimizer '" + name + "' (accepts: adam, sgd)");
    }
  }
}
