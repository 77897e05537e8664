package dev.keel.gpu.model;

import com.google.protobuf.Value;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The validated hyperparameters of one trial: the model's defaults overlaid with the values the
 * trial set. Unknown names and values of the wrong type are rejected with the field path.
 */
public final class Hyperparameters {
  /**
   * The default of a hyperparameter that has none: a trial must set it (to a number, a string or a
   * boolean), e.g. a value a model's file name is made of.
   */
  public static final Object REQUIRED =
      new Object() {
        @Override
        public String toString() {
          return "(required)";
        }
      };

  private final String modelName;
  private final Map<String, Object> values;

  private Hyperparameters(String modelName, Map<String, Object> values) {
    this.modelName = modelName;
    this.values = Collections.unmodifiableMap(values);
  }

  /** All names {@code model} accepts, with defaults. */
  public static Map<String, Object> defaultsOf(KeelModel model) {
    Map<String, Object> defaults = new TreeMap<>(TrainingHyperparameters.DEFAULTS);
    defaults.putAll(model.hyperparameterDefaults());
    return defaults;
  }

  /**
   * Validates and resolves.
   *
   * @param modelParams {@code ModelSpec.params} (field prefix {@code model.params})
   * @param hparams the trial's hyperparameters (field prefix {@code hyperparameters}); win over
   *     params
   * @throws InvalidFieldException naming the first unknown or mistyped field
   */
  public static Hyperparameters resolve(
      KeelModel model, Map<String, Value> modelParams, Map<String, Value> hparams) {
    Map<String, Object> resolved = new TreeMap<>(defaultsOf(model));
    apply(model, resolved, modelParams, "model.params");
    apply(model, resolved, hparams, "hyperparameters");
    for (Map.Entry<String, Object> e : resolved.entrySet()) {
      if (e.getValue() == REQUIRED) {
        throw new InvalidFieldException(
            "hyperparameters." + e.getKey(),
            "required by model "
                + model.name()
                + ", but neither hyperparameters nor model.params sets it");
      }
    }
    return new Hyperparameters(model.name(), resolved);
  }

  /** Defaults only (tests, benchmarks). */
  public static Hyperparameters defaults(KeelModel model) {
    return resolve(model, Map.of(), Map.of());
  }

  private static void apply(
      KeelModel model, Map<String, Object> resolved, Map<String, Value> given, String prefix) {
    for (Map.Entry<String, Value> e : new TreeMap<>(given).entrySet()) {
      String field = prefix + "." + e.getKey();
      Object def = resolved.get(e.getKey());
      if (def == null) {
        throw new InvalidFieldException(
            field,
            "not used by model "
                + model.name()
                + " (accepts: "
                + String.join(", ", new TreeSet<>(resolved.keySet()))
                + ")");
      }
      resolved.put(e.getKey(), convert(field, e.getValue(), def));
    }
  }

  private static Object convert(String field, Value v, Object def) {
    if (def == REQUIRED) {
      switch (v.getKindCase()) {
        case NUMBER_VALUE:
          double d = v.getNumberValue();
          return d == Math.rint(d) && !Double.isInfinite(d) ? (Object) (long) d : (Object) d;
        case STRING_VALUE:
          return v.getStringValue();
        case BOOL_VALUE:
          return v.getBoolValue();
        default:
          throw new InvalidFieldException(field, "expected a number, a string or a boolean");
      }
    }
    switch (v.getKindCase()) {
      case NUMBER_VALUE:
        {
          double d = v.getNumberValue();
          if (def instanceof Double) {
            return d;
          }
          if (def instanceof Long || def instanceof Integer) {
            if (d != Math.rint(d) || Double.isInfinite(d)) {
              throw new InvalidFieldException(field, "expected an integer, got " + d);
            }
            return (long) d;
          }
          break;
        }
      case STRING_VALUE:
        if (def instanceof String) {
          return v.getStringValue();
        }
        break;
      case BOOL_VALUE:
        if (def instanceof Boolean) {
          return v.getBoolValue();
        }
        break;
      default:
        break;
    }
    throw new InvalidFieldException(
        field,
        "expected "
            + typeName(def)
            + ", got "
            + v.getKindCase().name().toLowerCase(Locale.ROOT).replace("_value", ""));
  }

  private static String typeName(Object def) {
    if (def instanceof Double) {
      return "a number";
    }
    if (def instanceof Long || def instanceof Integer) {
      return "an integer";
    }
    if (def instanceof Boolean) {
      return "a boolean";
    }
    return "a string";
  }

  /**
   * The same with one declared value replaced; for {@link KeelModel#fitTo}, which records sizes
   * taken from the table.
   */
  Hyperparameters with(String name, Object value) {
    Object before = require(name);
    if (!before.getClass().equals(value.getClass())) {
      throw new IllegalArgumentException(
          "hyperparameter "
              + name
              + " is a "
              + before.getClass().getSimpleName()
              + ", not a "
              + value.getClass().getSimpleName());
    }
    Map<String, Object> copy = new TreeMap<>(values);
    copy.put(name, value);
    return new Hyperparameters(modelName, copy);
  }

  public String modelName() {
    return modelName;
  }

  public double getDouble(String name) {
    return ((Number) require(name)).doubleValue();
  }

  public int getInt(String name) {
    return Math.toIntExact(((Number) require(name)).longValue());
  }

  public String getString(String name) {
    return String.valueOf(require(name));
  }

  public boolean getBoolean(String name) {
    return (Boolean) require(name);
  }

  /** Name to value (Double, Long, Boolean or String), sorted by name. */
  public Map<String, Object> asMap() {
    return values;
  }

  /** As protobuf values, e.g. for checkpoint metadata. */
  public Map<String, Value> asProto() {
    Map<String, Value> out = new LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, toValue(v)));
    return out;
  }

  static Value toValue(Object v) {
    if (v instanceof Number n) {
      return Value.newBuilder().setNumberValue(n.doubleValue()).build();
    }
    if (v instanceof Boolean b) {
      return Value.newBuilder().setBoolValue(b).build();
    }
    return Value.newBuilder().setStringValue(String.valueOf(v)).build();
  }

  private Object require(String name) {
    Object v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException(
          "hyperparameter " + name + " is not declared by model " + modelName);
    }
    return v;
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
