package dev.keel.gpu.model.torchscript;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code init: reinitialize}: fresh weights drawn from the engine's generator (seeded by the
 * caller), by the rules PyTorch's own layers use in {@code reset_parameters}: a weight of two or
 * more axes (linear, convolution) and its layer's bias uniform in ±1/√fan_in, another 1-axis weight
 * (a normalisation's scale) ones, another bias zeros. Buffers such as batch-norm running statistics
 * keep the file's values.
 */
final class Reinitialization {
  private Reinitialization() {}

  static void apply(Block block, NDManager manager) {
    Map<String, Shape> shapes = new LinkedHashMap<>();
    for (Pair<String, Parameter> p : block.getParameters()) {
      shapes.put(p.getKey(), p.getValue().getArray().getShape());
    }
    for (Pair<String, Parameter> p : block.getParameters()) {
      NDArray array = p.getValue().getArray();
      Shape shape = array.getShape();
      NDArray fresh;
      if (shape.dimension() >= 2) {
        fresh = uniform(manager, shape, fanIn(shape));
      } else {
        Shape layerWeight = shapes.get(sibling(p.getKey(), "weight"));
        if (p.getKey().endsWith("bias") && layerWeight != null && layerWeight.dimension() >= 2) {
          fresh = uniform(manager, shape, fanIn(layerWeight));
        } else if (p.getKey().endsWith("weight")) {
          fresh = manager.ones(shape, array.getDataType());
        } else {
          fresh = manager.zeros(shape, array.getDataType());
        }
      }
      // in place, so the module's own tensor changes; a leaf that requires grad refuses that
      array.setRequiresGradient(false);
      array.muli(0).addi(fresh);
      fresh.close();
    }
  }

  private static NDArray uniform(NDManager manager, Shape shape, long fanIn) {
    float bound = (float) (1 / Math.sqrt(Math.max(1, fanIn)));
    return manager.randomUniform(-bound, bound, shape);
  }

  private static long fanIn(Shape weight) {
    return weight.size() / weight.get(0);
  }

  private static String sibling(String name, String last) {
    int dot = name.lastIndexOf('.');
    return (dot < 0 ? "" : name.substring(0, dot + 1)) + last;
  }
}
