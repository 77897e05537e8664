package dev.keel.gpu.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;
import java.nio.FloatBuffer;

/**
 * {@code (x - mean) / std} per feature. Mean and standard deviation are parameters that are never
 * trained (like batch-norm's running statistics), so they are saved with the block's other
 * parameters: a checkpoint scores with the statistics it was trained with, without the training
 * table. Until {@link #setStatistics} they are 0 and 1 (the identity).
 */
public final class Standardization extends AbstractBlock {
  private static final byte VERSION = 1;

  private final Parameter mean;
  private final Parameter std;

  public Standardization() {
    super(VERSION);
    mean =
        addParameter(
            Parameter.builder()
                .setName("mean")
                .setType(Parameter.Type.RUNNING_MEAN)
                .optRequiresGrad(false)
                .build());
    std =
        addParameter(
            Parameter.builder()
                .setName("std")
                .setType(Parameter.Type.RUNNING_VAR)
                .optRequiresGrad(false)
                .build());
  }

  @Override
  public void prepare(Shape[] inputShapes) {
    Shape features = new Shape(inputShapes[0].get(inputShapes[0].dimension() - 1));
    mean.setShape(features);
    std.setShape(features);
  }

  @Override
  public Shape[] getOutputShapes(Shape[] inputShapes) {
    return new Shape[] {inputShapes[0]};
  }

  @Override
  protected NDList forwardInternal(
      ParameterStore store, NDList inputs, boolean training, PairList<String, Object> params) {
    NDArray x = inputs.singletonOrThrow();
    NDArray m = store.getValue(mean, x.getDevice(), training);
    NDArray s = store.getValue(std, x.getDevice(), training);
    return new NDList(x.sub(m).div(s));
  }

  /** Overwrites the (initialized) statistics; {@code std} entries must be positive. */
  public void setStatistics(float[] means, float[] stds) {
    long features = mean.getArray().getShape().get(0);
    if (means.length != features || stds.length != features) {
      throw new IllegalArgumentException(
          means.length + " means and " + stds.length + " deviations for " + features + " features");
    }
    mean.getArray().set(FloatBuffer.wrap(means));
    std.getArray().set(FloatBuffer.wrap(stds));
  }

  /** The statistics as they are now (tests, diagnostics). */
  public float[][] statistics() {
    return new float[][] {
      mean.getArray().toType(DataType.FLOAT32, false).toFloatArray(),
      std.getArray().toType(DataType.FLOAT32, false).toFloatArray()
    };
  }
}
