package dev.keel.gpu.model;

import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.torchscript.ModelFileReader;
import dev.keel.gpu.model.torchscript.TorchScriptModel;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The model zoo (not the model registry of trained versions, {@code tables.registry}): resolves a
 * {@link ModelSpec} to a {@link KeelModel}: {@code torchscript} (a user's exported PyTorch model),
 * else {@code class} (a user class on the worker's classpath, loaded by reflection), else {@code
 * name} (a built-in); an empty spec means {@value FashionCnn#NAME}.
 */
public final class ModelZoo {
  private final Map<String, Supplier<KeelModel>> builtIns = new TreeMap<>();
  private final ClassLoader classLoader;
  private final ModelFileReader files;

  public ModelZoo(ClassLoader classLoader) {
    this(classLoader, ModelFileReader.standard());
  }

  public ModelZoo(ClassLoader classLoader, ModelFileReader files) {
    this.classLoader = classLoader;
    this.files = files;
  }

  /** The built-in models, user classes from this class's loader. */
  public static ModelZoo withBuiltIns() {
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    ModelZoo zoo = new ModelZoo(cl != null ? cl : ModelZoo.class.getClassLoader());
    zoo.register(FashionCnn.NAME, FashionCnn::new);
    zoo.register(TabularMlp.NAME, TabularMlp::new);
    return zoo;
  }

  public ModelZoo register(String name, Supplier<KeelModel> factory) {
    builtIns.put(name, factory);
    return this;
  }

  /**
   * @throws InvalidFieldException naming {@code model.name}, {@code model.class} or {@code
   *     model.torchscript}
   */
  public KeelModel resolve(ModelSpec spec) {
    if (!spec.getTorchscript().isBlank()) {
      return new TorchScriptModel(spec, files);
    }
    if (!spec.getClass_().isBlank()) {
      return instantiate(spec.getClass_().trim());
    }
    String name = spec.getName().isBlank() ? FashionCnn.NAME : spec.getName().trim();
    Supplier<KeelModel> factory = builtIns.get(name);
    if (factory == null) {
      throw new InvalidFieldException(
          "model.name",
          "unknown model '"
              + name
              + "' (built-in: "
              + String.join(", ", builtIns.keySet())
              + "; or set model.class to a class implementing "
              + KeelModel.class.getName()
              + ")");
    }
    return factory.get();
  }

  private KeelModel instantiate(String className) {
    Class<?> type;
    try {
      type = Class.forName(className, true, classLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new InvalidFieldException(
          "model.class", "class " + className + " not found on the worker's classpath", e);
    }
    if (!KeelModel.class.isAssignableFrom(type)) {
      throw new InvalidFieldException(
          "model.class", className + " does not implement " + KeelModel.class.getName());
    }
    try {
      return (KeelModel) type.getConstructor().newInstance();
    } catch (NoSuchMethodException e) {
      throw new InvalidFieldException(
          "model.class", className + " needs a public no-argument constructor", e);
    } catch (InvocationTargetException e) {
      throw new InvalidFieldException(
          "model.class", className + " constructor failed: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new InvalidFieldException(
          "model.class", className + " cannot be instantiated: " + e, e);
    }
  }
}
