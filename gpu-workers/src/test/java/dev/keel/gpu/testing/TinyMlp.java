package dev.keel.gpu.testing;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.KeelModel;
import java.util.Map;

/** A user model loaded by class name in tests. */
public class TinyMlp implements KeelModel {
  @Override
  public String name() {
    return "tiny_mlp";
  }

  @Override
  public Map<String, Object> hyperparameterDefaults() {
    return Map.of("units", 32L);
  }

  @Override
  public Shape inputShape() {
    return new Shape(1, 28, 28);
  }

  @Override
  public int numClasses() {
    return 10;
  }

  @Override
  public Block build(Hyperparameters hp) {
    return new SequentialBlock()
        .add(Blocks.batchFlattenBlock())
        .add(Linear.builder().setUnits(hp.getInt("units")).build())
        .add(Activation.reluBlock())
        .add(Linear.builder().setUnits(10).build());
  }
}
