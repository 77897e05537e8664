package dev.keel.gpu.predict;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InputNormalization;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.model.torchscript.TorchScriptModel;
import dev.keel.gpu.train.Batches;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.storage.checkpoint.CheckpointMetadata;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.util.Map;

/**
 * A model loaded from a verified checkpoint (MANIFEST checked first), predicting examples (images
 * or feature vectors) in batches. The checkpoint is self-contained: its hyperparameters rebuild the
 * block (for {@code tabular_mlp} with the feature and class counts of its training table) and its
 * parameters include input statistics such as standardization. Holds native memory: close it.
 */
public final class CheckpointPredictor implements AutoCloseable {
  public static final int DEFAULT_BATCH = 1000;

  private final VerifiedCheckpoint checkpoint;
  private final TrainableModel model;

  private CheckpointPredictor(VerifiedCheckpoint checkpoint, TrainableModel model) {
    this.checkpoint = checkpoint;
    this.model = model;
  }

  /** Built-in models plus user classes on the classpath; current thread count. */
  public static CheckpointPredictor open(CheckpointRef ref) throws IOException {
    return open(ref.getUri(), ModelZoo.withBuiltIns(), 0);
  }

  /**
   * @param uri a checkpoint directory URI ({@code CheckpointRef.uri})
   * @param threads libtorch intra-op threads (process-wide); 0 keeps the current setting
   * @throws dev.keel.storage.checkpoint.CorruptCheckpointException if the checkpoint is partial or
   *     corrupt
   */
  public static CheckpointPredictor open(String uri, ModelZoo registry, int threads)
      throws IOException {
    if (threads > 0) {
      Engine.getInstance();
      if (JniUtils.getNumThreads() != threads) {
        JniUtils.setNumThreads(threads);
      }
    }
    VerifiedCheckpoint checkpoint = VerifiedCheckpoint.open(CheckpointStorage.forRoot(uri), uri);
    CheckpointMetadata md = checkpoint.metadata();
    KeelModel keelModel = registry.resolve(md.model());
    Hyperparameters hp = Hyperparameters.resolve(keelModel, Map.of(), md.hyperparameters());
    return new CheckpointPredictor(
        checkpoint, TrainableModel.fromCheckpoint(keelModel, hp, md.seed(), checkpoint));
  }

  /** Whether predictors run on the CPU: the engine's default device, a GPU when one is visible. */
  public static boolean cpuOnly() {
    return !Engine.getInstance().defaultDevice().isGpu();
  }

  public CheckpointMetadata metadata() {
    return checkpoint.metadata();
  }

  public CheckpointRef checkpoint() {
    return checkpoint.ref();
  }

  public Predictions predict(LabeledExamples images) {
    return predict(images, DEFAULT_BATCH);
  }

  /**
   * Checks that this checkpoint's model can score {@code data} (kind of table, feature count,
   * classes); {@link #predict} does the same without the table's name.
   *
   * @param table the table as messages name it, e.g. {@code <uri> v<version>}
   * @throws InvalidFieldException (field {@code data}) naming the table, the model and this
   *     checkpoint
   */
  public void requireFits(String table, LabeledExamples data) {
    try {
      DataShape shape = DataShape.of(table, data);
      if (model.model() instanceof TorchScriptModel) {
        // the module is the checkpoint's own, not the file it was first loaded from
        TorchScriptModel.requireFits(
            model.block(), checkpoint.metadata().model().getTorchscriptFile(), shape);
      } else {
        model.model().fitTo(model.hyperparameters(), shape);
      }
    } catch (InvalidFieldException e) {
      throw new InvalidFieldException(
          "data",
          e.getMessage().substring(e.field().length() + 2)
              + " (checkpoint "
              + checkpoint.uri()
              + ")",
          e);
    }
  }

  /**
   * Arg-max labels and their softmax probabilities; labels of {@code images} are ignored.
   *
   * @throws InvalidFieldException when the data does not fit the model (see {@link #requireFits})
   */
  public Predictions predict(LabeledExamples images, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size must be >= 1, got " + batchSize);
    }
    requireFits("being scored", images);
    LabeledExamples inputs = InputNormalization.applied(model.hyperparameters(), images);
    int n = images.size();
    int[] labels = new int[n];
    float[] scores = new float[n];
    for (int from = 0; from < n; from += batchSize) {
      int to = Math.min(n, from + batchSize);
      try (NDManager batch = model.manager().newSubManager()) {
        NDArray probabilities =
            model.logits(Batches.inputs(batch, inputs, Batches.range(from, to))).softmax(1);
        NDList best = new NDList(probabilities.argMax(1), probabilities.max(new int[] {1}));
        long[] arg = best.get(0).toLongArray();
        float[] p = best.get(1).toFloatArray();
        for (int i = 0; i < arg.length; i++) {
          labels[from + i] = (int) arg[i];
          scores[from + i] = p[i];
        }
      }
    }
    return new Predictions(labels, scores);
  }

  @Override
  public void close() {
    model.close();
  }
}
