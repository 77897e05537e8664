package dev.keel.gpu.train;

import ai.djl.engine.Engine;
import ai.djl.engine.EngineException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.engine.PtSymbolBlock;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import dev.keel.gpu.checkpoint.ModelCheckpoints;
import dev.keel.gpu.gang.GradientExchange;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.PretrainedModel;
import dev.keel.gpu.model.Task;
import dev.keel.gpu.model.TrainingHyperparameters;
import dev.keel.gpu.model.torchscript.ForwardFailure;
import dev.keel.gpu.model.torchscript.TorchScriptModel;
import dev.keel.gpu.optim.Optimizers;
import dev.keel.gpu.optim.ResumableOptimizer;
import dev.keel.gpu.train.metric.Loss;
import dev.keel.gpu.train.metric.Losses;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link KeelModel}'s block with its parameters and optimizer state in native memory. One
 * training step runs in a sub-manager that is closed afterwards, and every gradient handle is
 * closed, so native memory stays flat. Close it to free everything.
 *
 * <p>Optimizer state is keyed by the parameter's path in the block (stable across processes), not
 * by DJL's random parameter ids.
 */
public final class TrainableModel implements AutoCloseable {
  private final KeelModel model;
  private final Hyperparameters hyperparameters;
  private final NDManager manager;
  private Block block;
  private final ResumableOptimizer optimizer;
  private final Loss loss;
  private final List<Pair<String, Parameter>> parameters = new ArrayList<>();
  private ParameterStore store;

  private TrainableModel(KeelModel model, Hyperparameters hp, NDManager manager, Block block) {
    this.model = model;
    this.hyperparameters = hp;
    this.manager = manager;
    this.block = block;
    this.optimizer = Optimizers.fromHyperparameters(hp);
    this.loss = lossOf(hp);
    block.getParameters().forEach(parameters::add);
    this.store = new ParameterStore(manager, false);
  }

  /**
   * Builds the block and initializes its parameters from libtorch's generator seeded by {@code
   * seed}.
   */
  public static TrainableModel initialize(KeelModel model, Hyperparameters hp, long seed) {
    Block built = model instanceof PretrainedModel ? null : model.build(hp);
    NDManager manager = NDManager.newBaseManager();
    try {
      Engine.getInstance().setRandomSeed(Seeds.init(seed));
      Block block;
      if (model instanceof PretrainedModel pretrained) {
        block = pretrained.load(hp, manager, seed);
      } else {
        block = built;
        block.initialize(manager, DataType.FLOAT32, new Shape(1).addAll(model.inputShape(hp)));
      }
      TrainableModel m = new TrainableModel(model, hp, manager, block);
      m.restoreRequiresGradient();
      return m;
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  public KeelModel model() {
    return model;
  }

  public Hyperparameters hyperparameters() {
    return hyperparameters;
  }

  public Block block() {
    return block;
  }

  public NDManager manager() {
    return manager;
  }

  /** What the trial trains against, and so the task its evaluation measures. */
  public Loss loss() {
    return loss;
  }

  /**
   * The hyperparameters {@code loss} and {@code label_smoothing}. A regression trial's loss is
   * never empty (its fit to the table names the task's default), so an empty one is
   * classification's; unset ones (checkpoints from before them) are classification's defaults.
   */
  static Loss lossOf(Hyperparameters hp) {
    Object name = hp.asMap().get(TrainingHyperparameters.LOSS);
    Object smoothing = hp.asMap().get(TrainingHyperparameters.LABEL_SMOOTHING);
    String loss = name == null ? "" : name.toString().strip();
    Task task = Losses.of(loss).map(Loss::task).orElse(Task.CLASSIFICATION);
    try {
      return Losses.choose(task, loss, smoothing instanceof Number n ? n.doubleValue() : 0);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      int colon = message.indexOf(": ");
      throw new InvalidFieldException(message.substring(0, colon), message.substring(colon + 2));
    }
  }

  public ResumableOptimizer optimizer() {
    return optimizer;
  }

  /**
   * The model a checkpoint holds, for predictions. A TorchScript model comes whole from the
   * checkpoint, so the file it was trained from need not exist any more.
   */
  public static TrainableModel fromCheckpoint(
      KeelModel model, Hyperparameters hp, long seed, VerifiedCheckpoint checkpoint)
      throws IOException {
    if (!(model instanceof PretrainedModel)) {
      TrainableModel m = initialize(model, hp, seed);
      try {
        m.restore(checkpoint, false);
        return m;
      } catch (IOException | RuntimeException e) {
        m.close();
        throw e;
      }
    }
    NDManager manager = NDManager.newBaseManager();
    try {
      return new TrainableModel(
          model, hp, manager, ModelCheckpoints.loadModule(checkpoint, manager, List.of()));
    } catch (IOException | RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /** Loads parameters (and, if asked, optimizer state) from a verified checkpoint. */
  public void restore(VerifiedCheckpoint checkpoint, boolean withOptimizerState)
      throws IOException {
    if (block instanceof PtSymbolBlock module) {
      // a module's parameters cannot be loaded into another module's tensors: the checkpoint's
      // module (with its buffers, e.g. running statistics) takes this one's place
      block = ModelCheckpoints.loadModule(checkpoint, manager, parameters);
      module.close();
      parameters.clear();
      block.getParameters().forEach(parameters::add);
    } else {
      ModelCheckpoints.loadParameters(checkpoint, block, manager);
    }
    if (withOptimizerState) {
      ModelCheckpoints.loadOptimizerState(checkpoint, optimizer, manager);
    }
    store = new ParameterStore(manager, false); // it caches parameter arrays
    restoreRequiresGradient();
  }

  private void restoreRequiresGradient() {
    for (Pair<String, Parameter> p : parameters) {
      if (p.getValue().requiresGradient() && !p.getValue().getArray().hasGradient()) {
        p.getValue().getArray().setRequiresGradient(true);
      }
    }
  }

  /**
   * One forward/backward/update on a batch whose arrays live in {@code step} (a sub-manager the
   * caller closes afterwards). Returns the mean cross-entropy before the update; when it is not
   * finite the parameters are left untouched.
   */
  public float trainStep(NDArray images, NDArray labels) {
    return trainStep(images, labels, GradientExchange.SINGLE);
  }

  /**
   * The same on one rank's share of a global batch: the gradients, and the loss with them, are
   * averaged over the ranks before the update, so every rank applies the same update, the one a
   * single rank would compute from the whole batch (the mean of equal-sized shares' means). All
   * ranks see the same averaged loss, so they also agree when it is not finite.
   */
  public float trainStep(NDArray images, NDArray labels, GradientExchange exchange) {
    NDArray loss;
    try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
      NDArray logits = forward(images, true);
      loss = this.loss.perExample(logits, labels).mean();
      collector.backward(loss);
    }
    List<NDArray> grads = new ArrayList<>();
    try {
      for (Pair<String, Parameter> p : parameters) {
        if (p.getValue().requiresGradient()) {
          grads.add(p.getValue().getArray().getGradient());
        }
      }
      float value;
      if (exchange.size() > 1) {
        NDArray sharedLoss = loss.reshape(1).duplicate();
        grads.add(sharedLoss);
        exchange.average(grads);
        value = sharedLoss.getFloat();
      } else {
        value = loss.getFloat();
      }
      if (!Float.isFinite(value)) {
        zeroGradients();
        return value;
      }
      int g = 0;
      for (Pair<String, Parameter> p : parameters) {
        if (p.getValue().requiresGradient()) {
          optimizer.update(
              p.getKey(), p.getValue().getArray(), grads.get(g++)); // also zeroes the gradient
        }
      }
      return value;
    } finally {
      grads.forEach(NDArray::close);
    }
  }

  /** Number of scalars in all parameters and running statistics. */
  public long parameterCount() {
    long n = 0;
    for (Pair<String, Parameter> p : parameters) {
      n += p.getValue().getArray().size();
    }
    return n;
  }

  /**
   * Every parameter and running statistic, in block order: what rank 0 hands the other ranks at the
   * start.
   */
  public List<NDArray> parameterArrays() {
    List<NDArray> arrays = new ArrayList<>();
    for (Pair<String, Parameter> p : parameters) {
      arrays.add(p.getValue().getArray());
    }
    return arrays;
  }

  private void zeroGradients() {
    for (Pair<String, Parameter> p : parameters) {
      if (p.getValue().requiresGradient()) {
        try (NDArray grad = p.getValue().getArray().getGradient()) {
          grad.subi(grad);
        }
      }
    }
  }

  /** Logits {@code (N, classes)} in inference mode (no dropout, batch-norm running stats). */
  public NDArray logits(NDArray images) {
    return forward(images, false);
  }

  private NDArray forward(NDArray inputs, boolean training) {
    try {
      return block.forward(store, new NDList(inputs), training).singletonOrThrow();
    } catch (EngineException e) {
      if (!(block instanceof PtSymbolBlock)) {
        throw e;
      }
      // the user's module failed: PyTorch's own line, not a JNI stack, and nothing to retry
      throw new InvalidFieldException(
          TorchScriptModel.FIELD,
          model.name()
              + " failed on a batch of shape "
              + inputs.getShape()
              + ": "
              + ForwardFailure.firstLine(e),
          e);
    }
  }

  /** Parameter paths and arrays, in block order (tests compare them). */
  public List<Pair<String, Parameter>> parameters() {
    return List.copyOf(parameters);
  }

  @Override
  public void close() {
    optimizer.close();
    manager.close();
  }
}
