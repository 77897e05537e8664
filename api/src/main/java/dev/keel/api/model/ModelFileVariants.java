package dev.keel.api.model;

import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Every file a {@code model.torchscript} template can name in an experiment, where its placeholders
 * take few enough values to list: each placeholder's hyperparameter is {@code const}, {@code
 * categorical} or an {@code int} range of at most {@value #MAX_INT_VALUES} values (or, without a
 * hyperparameter, {@code model.params} sets it). Submission checks read each of these files before
 * any trial would.
 */
public final class ModelFileVariants {
  /** The most integers of an {@code int} range that are listed. */
  public static final int MAX_INT_VALUES = 16;

  /** The most combinations that are listed. */
  public static final int MAX_VARIANTS = 32;

  /**
   * One combination of placeholder values and the file it names.
   *
   * @param values the placeholders' values, in the template's order
   * @param file the filled location, or empty when a value cannot fill its placeholder
   * @param problem why a value cannot fill its placeholder, else empty
   */
  public record Variant(
      Map<String, Value> values, Optional<String> file, Optional<String> problem) {
    /** {@code width=64, depth=2}, as messages name a combination; empty without placeholders. */
    public String describe() {
      return values.entrySet().stream()
          .map(e -> e.getKey() + "=" + ModelFileTemplate.text(e.getValue()))
          .collect(Collectors.joining(", "));
    }
  }

  private ModelFileVariants() {}

  /**
   * The files {@code c.model.torchscript} can name, one per combination of its placeholders'
   * values; empty when the model is not a TorchScript file, its template is malformed, a
   * placeholder's values cannot be listed, or there are more than {@value #MAX_VARIANTS}
   * combinations.
   */
  public static Optional<List<Variant>> of(ExperimentConfig c) {
    String location = c.getModel().getTorchscript();
    if (location.isBlank() || ModelFileTemplate.problem(location).isPresent()) {
      return Optional.empty();
    }
    ModelFileTemplate template = ModelFileTemplate.of(location);
    List<Map<String, Value>> combinations = new ArrayList<>();
    combinations.add(new LinkedHashMap<>());
    for (String name : template.placeholders()) {
      Optional<List<Value>> values = values(c, name);
      if (values.isEmpty()
          || (long) combinations.size() * values.get().size() > MAX_VARIANTS
          || values.get().isEmpty()) {
        return Optional.empty();
      }
      List<Map<String, Value>> next = new ArrayList<>();
      for (Map<String, Value> partial : combinations) {
        for (Value v : values.get()) {
          Map<String, Value> m = new LinkedHashMap<>(partial);
          m.put(name, v);
          next.add(m);
        }
      }
      combinations = next;
    }
    List<Variant> out = new ArrayList<>();
    for (Map<String, Value> values : combinations) {
      try {
        out.add(new Variant(values, Optional.of(template.fill(values)), Optional.empty()));
      } catch (IllegalArgumentException e) {
        out.add(new Variant(values, Optional.empty(), Optional.of(e.getMessage())));
      }
    }
    return Optional.of(out);
  }

  /** The values a trial may give {@code name}; empty when they cannot be listed. */
  private static Optional<List<Value>> values(ExperimentConfig c, String name) {
    Hyperparameter hp = c.getHyperparametersMap().get(name);
    if (hp == null) {
      Value param = c.getModel().getParams().getFieldsMap().get(name);
      return param == null ? Optional.empty() : Optional.of(List.of(param));
    }
    return switch (hp.getType()) {
      case "const" -> hp.hasVal() ? Optional.of(List.of(hp.getVal())) : Optional.empty();
      case "categorical" -> Optional.of(hp.getValsList());
      case "int" -> ints(hp);
      default -> Optional.empty(); // a double or log range: any real in it
    };
  }

  /** Every integer of an int range, where there are at most {@value #MAX_INT_VALUES}. */
  private static Optional<List<Value>> ints(Hyperparameter hp) {
    if (!hp.hasMinval() || !hp.hasMaxval()) {
      return Optional.empty();
    }
    double lo = Math.ceil(hp.getMinval());
    double hi = Math.floor(hp.getMaxval());
    if (hi < lo || hi - lo + 1 > MAX_INT_VALUES) {
      return Optional.empty();
    }
    List<Value> out = new ArrayList<>();
    for (double v = lo; v <= hi; v++) {
      out.add(Value.newBuilder().setNumberValue(v).build());
    }
    return Optional.of(out);
  }
}
