package dev.keel.service.experiment;

import ai.djl.engine.EngineException;
import com.google.protobuf.Value;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.model.ModelFileVariants;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.model.torchscript.TorchScriptModel;
import dev.keel.storage.S3Uri;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The files a {@code model.torchscript} names, read at submission instead of by the first trial:
 * for every combination of its placeholders' values that {@link ModelFileVariants} lists, the file
 * must exist and be TorchScript and, where the examples' shape is known before the table exists (a
 * pipeline's local source), its forward pass must take one example and return a score per class. S3
 * files, and templates whose values cannot be listed, are left to the trials, which fail with the
 * same messages.
 */
public final class ModelFileCheck {
  private ModelFileCheck() {}

  /**
   * What is wrong with each listed file, each problem at {@code model.torchscript}.
   *
   * @param prefix where the config sits in the request: {@code ""} or {@code "experiment."}
   * @param shape one example of the data the trials will train on, where known
   */
  public static List<ConfigProblem> problems(
      ExperimentConfig config, String prefix, Optional<DataShape> shape) {
    ModelSpec spec = config.getModel();
    if (spec.getTorchscript().isBlank()) {
      return List.of();
    }
    String field = prefix + "model.torchscript";
    Optional<List<ModelFileVariants.Variant>> variants = ModelFileVariants.of(config);
    if (variants.isEmpty()) {
      return List.of(); // the config validator names a malformed template; trials fill the rest
    }
    KeelModel model;
    try {
      model = ModelZoo.withBuiltIns().resolve(spec);
    } catch (InvalidFieldException e) {
      return List.of(new ConfigProblem(field, e.problem()));
    } catch (LinkageError e) {
      return List.of(); // no DJL in this process: the trials read the files
    }
    List<ConfigProblem> out = new ArrayList<>();
    boolean noEngine = false;
    for (ModelFileVariants.Variant v : variants.get()) {
      if (v.problem().isPresent()) {
        out.add(new ConfigProblem(field, v.problem().get()));
        continue;
      }
      if (S3Uri.isS3(v.file().orElseThrow())) {
        continue; // read with the workers' credentials, by the trials
      }
      Hyperparameters hyperparameters;
      try {
        hyperparameters =
            Hyperparameters.resolve(model, spec.getParams().getFieldsMap(), values(config, v));
      } catch (InvalidFieldException e) {
        return out; // a hyperparameter problem, which the trials name with its path
      }
      try {
        model.check(hyperparameters); // exists, readable, TorchScript
      } catch (InvalidFieldException e) {
        out.add(new ConfigProblem(field, e.problem()));
        continue;
      }
      if (spec.getFreezeCount() > 0 && model instanceof TorchScriptModel torchScript) {
        try {
          torchScript.checkFreeze(hyperparameters);
        } catch (InvalidFieldException e) {
          out.add(new ConfigProblem(prefix + e.field(), e.problem()));
          continue;
        } catch (EngineException | LinkageError e) {
          noEngine = true;
        }
      }
      if (shape.isEmpty() || noEngine) {
        continue;
      }
      try {
        model.fitTo(hyperparameters, shape.get());
      } catch (InvalidFieldException e) {
        out.add(
            new ConfigProblem(
                field, e.problem() + (v.values().isEmpty() ? "" : " (" + v.describe() + ")")));
      } catch (EngineException | LinkageError e) {
        noEngine = true; // libtorch cannot load in this process: the trials run the forward pass
      }
    }
    return out;
  }

  /**
   * The experiment's constant hyperparameters with this combination's placeholder values: what a
   * trial that draws it sets.
   */
  private static Map<String, Value> values(ExperimentConfig config, ModelFileVariants.Variant v) {
    Map<String, Value> out = new TreeMap<>();
    for (Map.Entry<String, Hyperparameter> e : config.getHyperparametersMap().entrySet()) {
      if ("const".equals(e.getValue().getType())) {
        out.put(e.getKey(), e.getValue().getVal());
      }
    }
    for (Map.Entry<String, Value> e : v.values().entrySet()) {
      if (config.getHyperparametersMap().containsKey(e.getKey())) {
        out.put(e.getKey(), e.getValue()); // else model.params sets it
      }
    }
    return out;
  }
}
