package dev.keel.gpu.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import dev.keel.gpu.checkpoint.ModelCheckpoints;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.optim.Optimizers;
import dev.keel.gpu.optim.ResumableOptimizer;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link KeelModel}'s block with its parameters and optimizer state in native memory. One
 * training step runs in a sub-manager that is closed afterwards, and every gradient handle is
 * closed, so native memory stays flat. Close it to free everything.
 *
 * <p>Optimizer state is keyed by the parameter's path in the block (stable across processes),
 * not by DJL's random parameter ids.
 */
public final class TrainableModel implements AutoCloseable {
  private final KeelModel model;
  private final Hyperparameters hyperparameters;
  private final NDManager manager;
  private final Block block;
  private final ResumableOptimizer optimizer;
  private final List<Pair<String, Parameter>> parameters = new ArrayList<>();
  private ParameterStore store;

  private TrainableModel(KeelModel model, Hyperparameters hp, NDManager manager, Block block) {
    this.model = model;
    this.hyperparameters = hp;
    this.manager = manager;
    this.block = block;
    this.optimizer = Optimizers.fromHyperparameters(hp);
    block.getParameters().forEach(parameters::add);
    this.store = new ParameterStore(manager, false);
  }

  /** Builds the block and initializes its parameters from libtorch's generator seeded by {@code seed}. */
  public static TrainableModel initialize(KeelModel model, Hyperparameters hp, long seed) {
    Block block = model.build(hp);
    NDManager manager = NDManager.newBaseManager();
    try {
      Engine.getInstance().setRandomSeed(Seeds.init(seed));
      Shape input = new Shape(1).addAll(model.inputShape());
      block.initialize(manager, DataType.FLOAT32, input);
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

  public ResumableOptimizer optimizer() {
    return optimizer;
  }

  /** Loads parameters (and, if asked, optimizer state) from a verified checkpoint. */
  public void restore(VerifiedCheckpoint checkpoint, boolean withOptimizerState) throws IOException {
    ModelCheckpoints.loadParameters(checkpoint, block, manager);
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
    NDArray loss;
    try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
      NDArray logits = block.forward(store, new NDList(images), true).singletonOrThrow();
      loss = crossEntropy(logits, labels).mean();
      collector.backward(loss);
    }
    float value = loss.getFloat();
    if (!Float.isFinite(value)) {
      zeroGradients();
      return value;
    }
    for (Pair<String, Parameter> p : parameters) {
      Parameter param = p.getValue();
      if (!param.requiresGradient()) {
        continue;
      }
      NDArray weight = param.getArray();
      try (NDArray grad = weight.getGradient()) {
        optimizer.update(p.getKey(), weight, grad); // also zeroes the gradient
      }
    }
    return value;
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
    return block.forward(store, new NDList(images), false).singletonOrThrow();
  }

  /** Per-example cross-entropy of logits against int64 labels. */
  public static NDArray crossEntropy(NDArray logits, NDArray labels) {
    return logits.logSoftmax(1).get(new NDIndex().addAllDim().addPickDim(labels)).neg();
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
