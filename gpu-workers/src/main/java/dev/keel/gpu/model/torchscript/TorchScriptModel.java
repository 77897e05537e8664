package dev.keel.gpu.model.torchscript;

import ai.djl.engine.EngineException;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.engine.PtSymbolBlock;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.ParameterStore;
import dev.keel.api.model.ModelFileTemplate;
import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.PretrainedModel;
import dev.keel.gpu.model.TrainingHyperparameters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A user's PyTorch model exported as TorchScript ({@code model.torchscript}). The file is the
 * architecture and, unless {@code init: reinitialize}, the first weights; Keel's trainer,
 * optimizer, checkpoints and gangs train it like a built-in model. Each file is read once per
 * instance and pinned by its SHA-256, which the trial's checkpoints carry.
 */
public final class TorchScriptModel implements PretrainedModel {
  public static final String FIELD = "model.torchscript";

  private final ModelSpec spec;
  private final ModelFileTemplate template;
  private final ModelFileReader reader;
  private final Map<String, ModelFile> files = new ConcurrentHashMap<>();

  /**
   * @throws InvalidFieldException ({@value #FIELD}) when the location's braces are not placeholders
   */
  public TorchScriptModel(ModelSpec spec, ModelFileReader reader) {
    this.spec = spec;
    this.reader = reader;
    try {
      this.template = ModelFileTemplate.of(spec.getTorchscript());
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(FIELD, e.getMessage(), e);
    }
  }

  @Override
  public String name() {
    return template.toString();
  }

  /** The template's placeholders, which trials must set, besides the training hyperparameters. */
  @Override
  public Map<String, Object> hyperparameterDefaults() {
    Map<String, Object> out = new TreeMap<>();
    for (String name : template.placeholders()) {
      if (!TrainingHyperparameters.DEFAULTS.containsKey(name)) {
        out.put(name, Hyperparameters.REQUIRED);
      }
    }
    return out;
  }

  /** Unknown until a table's examples are offered to {@link #fitTo}: the file fixes none. */
  @Override
  public Shape inputShape() {
    return new Shape();
  }

  /** Whatever the file's output has: {@link #fitTo} checks it against the table. */
  @Override
  public int numClasses() {
    return 0;
  }

  /** A TorchScript model is loaded ({@link #load}), never built empty. */
  @Override
  public Block build(Hyperparameters hyperparameters) {
    throw new UnsupportedOperationException("a TorchScript model is loaded, not built: " + name());
  }

  /** Reads the file these hyperparameters name and checks that it is TorchScript. */
  @Override
  public void check(Hyperparameters hyperparameters) {
    file(hyperparameters);
  }

  /** The spec with the file these hyperparameters name and its SHA-256, as checkpoints keep it. */
  public ModelSpec pinned(Hyperparameters hyperparameters) {
    ModelFile f = file(hyperparameters);
    return spec.toBuilder().setTorchscriptFile(f.uri()).setTorchscriptSha256(f.sha256()).build();
  }

  /**
   * Runs the model once on a zero batch of one of the table's examples and checks that it returns a
   * score per class: {@code (1, K)} with K at least the table's classes.
   */
  @Override
  public Hyperparameters fitTo(Hyperparameters hyperparameters, DataShape data) {
    ModelFile f = file(hyperparameters);
    try (NDManager manager = NDManager.newBaseManager()) {
      PtSymbolBlock block = open(f, manager);
      ParameterFreeze.apply(block, spec.getFreezeList(), f.uri());
      requireFits(block, f.uri(), data);
    }
    return hyperparameters;
  }

  /**
   * Loads the file these hyperparameters name and checks {@code model.freeze} against its
   * parameters, as a trial would before its first step.
   *
   * @throws InvalidFieldException ({@code model.freeze…}) for a prefix that matches nothing or one
   *     that leaves nothing to train
   */
  public void checkFreeze(Hyperparameters hyperparameters) {
    ModelFile f = file(hyperparameters);
    try (NDManager manager = NDManager.newBaseManager()) {
      ParameterFreeze.apply(open(f, manager), spec.getFreezeList(), f.uri());
    }
  }

  /**
   * Runs {@code block} once on a zero batch of one of the table's examples and checks that it
   * returns a score per class: {@code (1, K)} with K at least the table's classes.
   *
   * @param file the module as messages name it
   * @throws InvalidFieldException ({@code data}) naming the file, the input and the output shapes
   */
  public static void requireFits(Block block, String file, DataShape data) {
    Shape input = new Shape(1).addAll(data.example());
    Shape output;
    try (NDManager manager = NDManager.newBaseManager()) {
      NDList out =
          block.forward(
              new ParameterStore(manager, false), new NDList(manager.zeros(input)), false);
      output = out.size() == 1 ? out.singletonOrThrow().getShape() : null;
    } catch (EngineException e) {
      throw new InvalidFieldException(
          "data",
          file
              + " cannot take "
              + data.subject()
              + "'s "
              + data.examples()
              + ": its forward failed on a zero batch of shape "
              + input
              + ": "
              + ForwardFailure.firstLine(e));
    }
    // a regression model returns one value per row, a multilabel one a logit per label
    int exact = data.multilabel() ? data.classes() : data.regression() ? 1 : -1;
    if (exact > 0 && output != null && !output.equals(new Shape(1, exact))) {
      throw new InvalidFieldException(
          "data",
          file
              + " returns shape "
              + output
              + " for a batch of shape "
              + input
              + " ("
              + data.subject()
              + (data.multilabel()
                  ? " has "
                      + exact
                      + " labels, multilabel); a multilabel model must return (1, "
                      + exact
                      + "), one logit per label"
                  : " holds "
                      + data.examples()
                      + " labelled with values); a regression model must return (1, 1)"));
    }
    if (output == null
        || output.dimension() != 2
        || output.get(0) != 1
        || output.get(1) < Math.max(1, data.classes())) {
      throw new InvalidFieldException(
          "data",
          file
              + " returns "
              + (output == null ? "more than one tensor" : "shape " + output)
              + " for a batch of shape "
              + input
              + " ("
              + data.subject()
              + " holds "
              + data.examples()
              + "); a classifier of its "
              + data.classes()
              + " classes must return (1, K) with K >= "
              + data.classes());
    }
  }

  @Override
  public Block load(Hyperparameters hyperparameters, NDManager manager, long initSeed) {
    ModelFile f = file(hyperparameters);
    PtSymbolBlock block = open(f, manager);
    if (spec.getInit() == ModelSpec.Init.reinitialize) {
      Reinitialization.apply(block, manager);
    }
    ParameterFreeze.apply(block, spec.getFreezeList(), f.uri());
    return block;
  }

  /** The file these hyperparameters name, read once. */
  public ModelFile file(Hyperparameters hyperparameters) {
    String uri;
    try {
      uri = template.fill(hyperparameters.asMap());
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(FIELD, e.getMessage(), e);
    }
    return files.computeIfAbsent(uri, u -> read(u, hyperparameters));
  }

  private ModelFile read(String uri, Hyperparameters hyperparameters) {
    byte[] bytes;
    try {
      bytes = reader.read(uri);
    } catch (NoSuchFileException e) {
      throw new InvalidFieldException(FIELD, uri + " does not exist" + filledFrom(hyperparameters));
    } catch (IOException | RuntimeException e) {
      throw new InvalidFieldException(
          FIELD, uri + " cannot be read" + filledFrom(hyperparameters) + ": " + e.getMessage(), e);
    }
    FileKind.notTorchScript(bytes)
        .ifPresent(
            kind -> {
              throw new InvalidFieldException(
                  FIELD, uri + " " + kind + "; " + FileKind.HOW_TO_EXPORT);
            });
    return ModelFile.of(uri, bytes);
  }

  private String filledFrom(Hyperparameters hyperparameters) {
    if (!template.isTemplate()) {
      return "";
    }
    StringBuilder values = new StringBuilder();
    for (String name : template.placeholders()) {
      values.append(values.length() == 0 ? "" : ", ");
      values
          .append(name)
          .append('=')
          .append(ModelFileTemplate.text(hyperparameters.asMap().get(name)));
    }
    return " (" + template + " with " + values + ")";
  }

  /** The module with the file's weights, its memory owned by {@code manager}. */
  static PtSymbolBlock open(ModelFile f, NDManager manager) {
    // the profiling graph executor re-optimises after its first runs, so a resumed trial would run
    // different kernels for a few batches than an uninterrupted one; PyTorch eager does without it
    JniUtils.setGraphExecutorOptimize(false);
    try {
      PtSymbolBlock block =
          JniUtils.loadModule(
              (PtNDManager) manager, new ByteArrayInputStream(f.bytes()), true, false);
      // DJL's block assumes a loaded module is in training mode and switches only when a forward
      // asks for the other one; a file exported after model.eval() would otherwise train in eval
      // mode: batch norm on its running statistics, which never update, and no dropout
      JniUtils.enableTrainingMode(block);
      return block;
    } catch (IOException | EngineException e) {
      throw new InvalidFieldException(
          FIELD, f.uri() + " cannot be loaded by libtorch: " + ForwardFailure.firstLine(e), e);
    }
  }
}
