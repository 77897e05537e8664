package dev.keel.gpu.checkpoint;

import ai.djl.MalformedModelException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.engine.PtSymbolBlock;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.util.Pair;
import dev.keel.gpu.optim.ResumableOptimizer;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointSnapshot;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves a DJL model's tensors into and out of checkpoint files. The files themselves (layout,
 * MANIFEST, atomic commit, S3) belong to the storage module, which knows no DJL.
 */
public final class ModelCheckpoints {
  private ModelCheckpoints() {}

  /** Serializes {@code block}'s parameters and {@code optimizer}'s state as they are now. */
  public static CheckpointSnapshot snapshot(Block block, ResumableOptimizer optimizer)
      throws IOException {
    ByteArrayOutputStream params = new ByteArrayOutputStream(1 << 20);
    try (DataOutputStream out = new DataOutputStream(params)) {
      block.saveParameters(out);
    }
    ByteArrayOutputStream state = new ByteArrayOutputStream(1 << 20);
    try (DataOutputStream out = new DataOutputStream(state)) {
      optimizer.saveState(out);
    }
    return new CheckpointSnapshot(params.toByteArray(), state.toByteArray());
  }

  /**
   * Replaces the values of {@code block}'s (initialized) parameters, keeping their shapes, and
   * frees the arrays they replace. Restores requires-grad, which DJL's {@code loadParameters}
   * drops.
   *
   * @throws CorruptCheckpointException if the saved parameters do not fit this block
   */
  public static void loadParameters(VerifiedCheckpoint checkpoint, Block block, NDManager manager)
      throws IOException {
    String uri = checkpoint.uri();
    List<Pair<String, Parameter>> params = new ArrayList<>();
    block.getParameters().forEach(params::add);
    List<NDArray> before = new ArrayList<>();
    List<Shape> shapes = new ArrayList<>();
    for (Pair<String, Parameter> p : params) {
      before.add(p.getValue().isInitialized() ? p.getValue().getArray() : null);
      shapes.add(p.getValue().isInitialized() ? p.getValue().getArray().getShape() : null);
    }
    try (DataInputStream in = checkpoint.openFile(CheckpointFiles.PARAMETERS)) {
      block.loadParameters(manager, in);
    } catch (MalformedModelException | IOException | RuntimeException e) {
      throw new CorruptCheckpointException(
          uri, CheckpointFiles.PARAMETERS, "does not fit this model: " + e.getMessage(), e);
    }
    for (int i = 0; i < params.size(); i++) {
      Parameter param = params.get(i).getValue();
      NDArray now = param.getArray();
      if (shapes.get(i) != null && !shapes.get(i).equals(now.getShape())) {
        throw new CorruptCheckpointException(
            uri,
            CheckpointFiles.PARAMETERS,
            "parameter "
                + params.get(i).getKey()
                + " has shape "
                + now.getShape()
                + ", the model expects "
                + shapes.get(i)
                + " (different hyperparameters?)");
      }
      if (param.requiresGradient()) {
        now.setRequiresGradient(true);
      }
      NDArray old = before.get(i);
      if (old != null && old != now) {
        old.close();
      }
    }
  }

  /**
   * The TorchScript module a checkpoint holds (its parameters file is the whole module), in {@code
   * manager}. When {@code expected} lists the parameters of the module it replaces, the names and
   * shapes must match and frozen parameters stay frozen.
   *
   * @throws CorruptCheckpointException if the file is no module or not one of this shape
   */
  public static PtSymbolBlock loadModule(
      VerifiedCheckpoint checkpoint, NDManager manager, List<Pair<String, Parameter>> expected)
      throws IOException {
    String uri = checkpoint.uri();
    JniUtils.setGraphExecutorOptimize(false);
    PtSymbolBlock module = new PtSymbolBlock((PtNDManager) manager);
    try (DataInputStream in = checkpoint.openFile(CheckpointFiles.PARAMETERS)) {
      module.loadParameters(manager, in);
    } catch (MalformedModelException | IOException | RuntimeException e) {
      throw new CorruptCheckpointException(
          uri, CheckpointFiles.PARAMETERS, "is not a TorchScript module: " + e.getMessage(), e);
    }
    // the module keeps the mode it was saved in, and DJL's block assumes training mode: a module
    // saved in eval mode would resume training with batch-norm statistics that never update
    JniUtils.enableTrainingMode(module);
    if (expected.isEmpty()) {
      return module;
    }
    List<Pair<String, Parameter>> loaded = new ArrayList<>();
    module.getParameters().forEach(loaded::add);
    for (int i = 0; i < Math.max(loaded.size(), expected.size()); i++) {
      String want = i < expected.size() ? describe(expected.get(i)) : "nothing";
      String got = i < loaded.size() ? describe(loaded.get(i)) : "nothing";
      if (!want.equals(got)) {
        module.close();
        throw new CorruptCheckpointException(
            uri,
            CheckpointFiles.PARAMETERS,
            "does not fit this model: parameter "
                + (i + 1)
                + " is "
                + got
                + ", the model has "
                + want);
      }
      if (!expected.get(i).getValue().requiresGradient()) {
        loaded.get(i).getValue().freeze(true);
      }
    }
    return module;
  }

  private static String describe(Pair<String, Parameter> p) {
    return p.getKey() + " " + p.getValue().getArray().getShape();
  }

  /** Restores the optimizer's moments / momentum and step counts. */
  public static void loadOptimizerState(
      VerifiedCheckpoint checkpoint, ResumableOptimizer optimizer, NDManager manager) {
    try (DataInputStream in = checkpoint.openFile(CheckpointFiles.OPTIMIZER)) {
      optimizer.loadState(manager, in);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(
          checkpoint.uri(), CheckpointFiles.OPTIMIZER, "unreadable: " + e.getMessage(), e);
    }
  }
}
