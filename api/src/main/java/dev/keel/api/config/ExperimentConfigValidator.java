package dev.keel.api.config;

import com.google.protobuf.Value;
import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointStorage;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rules of an experiment config that are the experiment's own: data, hyperparameter shapes,
 * resources, periods, restarts, checkpoint storage, model, and the searcher fields every experiment
 * uses (metric, max_length). The searcher's rules come in as {@link SearcherRules}; every violation
 * is reported with its path.
 */
public final class ExperimentConfigValidator {
  public static final Set<String> HP_TYPES = Set.of("const", "int", "double", "log", "categorical");

  private ExperimentConfigValidator() {}

  /** For a standalone experiment: {@code data.table} is required. */
  public static List<ConfigProblem> validate(ExperimentConfig config, SearcherRules searcher) {
    Problems problems = new Problems();
    validate(config, "", true, searcher, problems);
    return problems.list();
  }

  /**
   * Only what a searcher reads (hyperparameters, searcher): for searchers built outside an
   * experiment, such as simulations and previews, which have no data or model.
   */
  public static List<ConfigProblem> validateSearch(
      ExperimentConfig config, SearcherRules searcher) {
    Problems problems = new Problems();
    boolean wellFormed = hyperparameters(config, "", problems);
    searcher(config, "", searcher, wellFormed, problems);
    return problems.list();
  }

  /** An experiment's name labels it (ids, the catalog, the dashboard); it never names a path. */
  static final int MAX_NAME = 200;

  /** A sanity bound: more ranks than this is a typo, not a cluster. */
  static final int MAX_SLOTS_PER_TRIAL = 512;

  static void validate(
      ExperimentConfig c,
      String path,
      boolean requireTable,
      SearcherRules searcher,
      Problems problems) {
    if (requireTable && c.getData().getTable().isBlank()) {
      problems.add(Problems.at(path, "data.table"), "required (the Delta table to train on)");
    } else if (!c.getData().getTable().isBlank()
        && !c.getData().getTable().matches(PipelineRequestValidator.TABLE)) {
      problems.add(
          Problems.at(path, "data.table"),
          "must be a table name ([A-Za-z0-9_.-], not starting with '.') or a"
              + " URI, got '"
              + c.getData().getTable()
              + "'");
    }
    String name = c.getName();
    if (name.length() > MAX_NAME
        || name.contains("/")
        || name.contains("\\")
        || name.contains("..")
        || name.chars().anyMatch(Character::isISOControl)) {
      problems.add(
          Problems.at(path, "name"),
          "must be at most "
              + MAX_NAME
              + " characters without '/', '\\', '..'"
              + " or control characters");
    }
    if (c.getData().hasVersion() && c.getData().getVersion() < 0) {
      problems.add(
          Problems.at(path, "data.version"), "must be >= 0, got " + c.getData().getVersion());
    }
    if (c.getData().hasValidationFraction()
        && !(c.getData().getValidationFraction() > 0 && c.getData().getValidationFraction() < 1)) {
      problems.add(
          Problems.at(path, "data.validation_fraction"),
          "must be > 0 and < 1, got " + c.getData().getValidationFraction());
    }
    if (c.getValidation().hasFraction()) {
      double fraction = c.getValidation().getFraction();
      if (!(fraction > 0 && fraction < 1)) {
        problems.add(
            Problems.at(path, "validation.fraction"), "must be > 0 and < 1, got " + fraction);
      } else if (c.getData().hasValidationFraction()
          && c.getData().getValidationFraction() != fraction) {
        problems.add(
            Problems.at(path, "validation.fraction"),
            fraction
                + " differs from data.validation_fraction "
                + c.getData().getValidationFraction()
                + " (the older spelling of the same setting): set one of them");
      }
    }
    boolean wellFormed = hyperparameters(c, path, problems);
    searcher(c, path, searcher, wellFormed, problems);
    if (c.getResources().hasSlotsPerTrial() && c.getResources().getSlotsPerTrial() < 1) {
      problems.add(
          Problems.at(path, "resources.slots_per_trial"),
          "must be >= 1, got " + c.getResources().getSlotsPerTrial());
    } else if (c.getResources().getSlotsPerTrial() > MAX_SLOTS_PER_TRIAL) {
      problems.add(
          Problems.at(path, "resources.slots_per_trial"),
          "must be <= " + MAX_SLOTS_PER_TRIAL + ", got " + c.getResources().getSlotsPerTrial());
    } else if (c.getResources().getSlotsPerTrial() > 1) {
      slotsDivideBatchSizes(c, path, problems);
    }
    String pool = c.getResources().getResourcePool();
    if (!pool.isEmpty() && !pool.matches("[a-z0-9][a-z0-9-]*")) {
      problems.add(
          Problems.at(path, "resources.resource_pool"),
          "must be lower-case letters, digits and '-', got '" + pool + "'");
    }
    if (c.hasMinValidationPeriod()) {
      length(c.getMinValidationPeriod(), Problems.at(path, "min_validation_period"), problems);
      Optional<LengthUnit> unit = TrainingLength.unitOf(c.getSearcher().getMaxLength());
      Optional<LengthUnit> periodUnit = TrainingLength.unitOf(c.getMinValidationPeriod());
      if (unit.isPresent() && periodUnit.isPresent() && !periodUnit.equals(unit)) {
        problems.add(
            Problems.at(path, "min_validation_period"),
            "must be in the unit of searcher.max_length (" + unit.get().label() + ")");
      }
    }
    if (c.hasMinCheckpointPeriod()) {
      length(c.getMinCheckpointPeriod(), Problems.at(path, "min_checkpoint_period"), problems);
    }
    if (c.hasMaxRestarts() && c.getMaxRestarts() < 0) {
      problems.add(Problems.at(path, "max_restarts"), "must be >= 0, got " + c.getMaxRestarts());
    }
    checkpointStorage(c.getCheckpointStorage(), Problems.at(path, "checkpoint_storage"), problems);
    ModelSpecRules.check(c, Problems.at(path, "model"), problems);
  }

  /** Checks every hyperparameter's shape; true if none had a problem. */
  /**
   * Every rank trains on an equal share of each batch, so a batch size the ranks cannot share is
   * refused now, not on the workers.
   */
  private static void slotsDivideBatchSizes(ExperimentConfig c, String path, Problems problems) {
    int slots = c.getResources().getSlotsPerTrial();
    Hyperparameter hp = c.getHyperparametersMap().get("batch_size");
    if (hp == null) {
      return;
    }
    List<Value> sizes =
        "const".equals(hp.getType())
            ? List.of(hp.getVal())
            : "categorical".equals(hp.getType()) ? hp.getValsList() : List.of();
    for (Value v : sizes) {
      if (v.hasNumberValue() && v.getNumberValue() % slots != 0) {
        problems.add(
            Problems.at(path, "hyperparameters.batch_size"),
            String.format(
                Locale.ROOT,
                "%.0f cannot be split evenly over resources.slots_per_trial = %d ranks (the batch size is the global one)",
                v.getNumberValue(),
                slots));
      }
    }
  }

  private static boolean hyperparameters(ExperimentConfig c, String path, Problems problems) {
    int before = problems.count();
    c.getHyperparametersMap()
        .forEach(
            (name, hp) ->
                hyperparameter(hp, Problems.at(path, "hyperparameters." + name), problems));
    return problems.count() == before;
  }

  private static void hyperparameter(Hyperparameter hp, String path, Problems problems) {
    String type = hp.getType();
    if (type.isEmpty()) {
      problems.add(
          Problems.at(path, "type"), "required (expected const|int|double|log|categorical)");
      return;
    }
    switch (type) {
      case "const" -> {
        if (!hp.hasVal()) {
          problems.add(Problems.at(path, "val"), "required for a const hyperparameter");
        }
      }
      case "int", "double", "log" -> range(hp, type, path, problems);
      case "categorical" -> {
        if (hp.getValsCount() == 0) {
          problems.add(Problems.at(path, "vals"), "must list at least one value");
        }
      }
      default ->
          problems.add(
              Problems.at(path, "type"),
              "unknown type '" + type + "' (expected const|int|double|log|categorical)");
    }
  }

  private static void range(Hyperparameter hp, String type, String path, Problems problems) {
    if (!hp.hasMinval()) {
      problems.add(Problems.at(path, "minval"), "required for a " + type + " hyperparameter");
    }
    if (!hp.hasMaxval()) {
      problems.add(Problems.at(path, "maxval"), "required for a " + type + " hyperparameter");
    }
    if (hp.hasMinval() && hp.hasMaxval() && hp.getMinval() > hp.getMaxval()) {
      problems.add(
          Problems.at(path, "minval"),
          "must be <= maxval (" + num(hp.getMaxval()) + "), got " + num(hp.getMinval()));
    }
    if ("int".equals(type)) {
      for (Map.Entry<String, Double> bound :
          Map.of("minval", hp.getMinval(), "maxval", hp.getMaxval()).entrySet()) {
        if (bound.getValue() != Math.rint(bound.getValue())) {
          problems.add(
              Problems.at(path, bound.getKey()),
              "must be an integer for an int hyperparameter, got " + bound.getValue());
        }
      }
    }
    if ("log".equals(type)) {
      if (!hp.hasBase()) {
        problems.add(Problems.at(path, "base"), "required for a log hyperparameter (e.g. 10)");
      } else if (hp.getBase() <= 0 || hp.getBase() == 1) {
        problems.add(Problems.at(path, "base"), "must be > 0 and != 1, got " + num(hp.getBase()));
      }
    }
    if (hp.hasCount() && hp.getCount() < 1) {
      problems.add(Problems.at(path, "count"), "must be > 0, got " + hp.getCount());
    } else if (hp.getCount() > ConfigLimits.MAX_GRID_POINTS) {
      problems.add(
          Problems.at(path, "count"),
          ConfigLimits.atMost(ConfigLimits.MAX_GRID_POINTS, hp.getCount()));
    }
  }

  /**
   * Whichever method searches, the experiment reports this metric and trials train in this length
   * and unit.
   */
  private static void searcherCommon(SearcherConfig s, String path, Problems problems) {
    if (s.getMetric().isEmpty()) {
      problems.add(Problems.at(path, "metric"), "required (e.g. validation_loss or accuracy)");
    }
    if (!s.hasMaxLength()) {
      problems.add(
          Problems.at(path, "max_length"), "required (e.g. {batches: 1000} or {epochs: 1})");
    } else {
      length(s.getMaxLength(), Problems.at(path, "max_length"), problems);
    }
  }

  private static void searcher(
      ExperimentConfig c,
      String path,
      SearcherRules rules,
      boolean hyperparametersWellFormed,
      Problems problems) {
    searcherCommon(c.getSearcher(), Problems.at(path, "searcher"), problems);
    for (ConfigProblem p : rules.check(c, hyperparametersWellFormed)) {
      problems.add(Problems.at(path, p.path()), p.message());
    }
  }

  private static void length(Length length, String path, Problems problems) {
    TrainingLength.problem(length, path).ifPresent(p -> problems.add(p.path(), p.message()));
  }

  private static void checkpointStorage(CheckpointStorage s, String path, Problems problems) {
    if (s.getSaveExperimentBest() < 0) {
      problems.add(
          Problems.at(path, "save_experiment_best"),
          "must be >= 0, got " + s.getSaveExperimentBest());
    }
    if (s.getSaveTrialBest() < 0) {
      problems.add(
          Problems.at(path, "save_trial_best"), "must be >= 0, got " + s.getSaveTrialBest());
    }
    if (s.getSaveTrialLatest() < 0) {
      problems.add(
          Problems.at(path, "save_trial_latest"), "must be >= 0, got " + s.getSaveTrialLatest());
    }
  }

  private static String num(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
