package dev.keel.gpu.model;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.norm.Dropout;
import ai.djl.nn.pooling.Pool;
import dev.keel.tables.dataset.LabeledImages;
import java.util.Map;

/**
 * Built-in {@code fashion_cnn}: {@code stages} (default 2) 3×3 conv + batch-norm + ReLU + 2×2
 * max-pool stages ({@code width}, {@code 2*width}, {@code 4*width}, … channels), then dropout, a
 * {@code hidden}-unit dense layer, dropout and 10 logits. It takes its table's images, grey or
 * colour, of any size: {@link #fitTo} records their shape as the hyperparameter {@value
 * #INPUT_SHAPE} ({@code CxHxW}); a checkpoint without it (written before tables had other shapes)
 * takes 28×28 grey images, Fashion-MNIST's.
 */
public final class FashionCnn implements KeelModel {
  public static final String NAME = "fashion_cnn";
  public static final String WIDTH = "width";
  public static final String HIDDEN = "hidden";
  public static final String DROPOUT = "dropout";
  public static final String STAGES = "stages";
  public static final String INPUT_SHAPE = "input_shape";

  /**
   * A 256-pixel side halves 8 times before nothing is left; {@link #fitTo} checks the table's
   * images (28×28 halves to 14, 7, 3 and 1: a fifth pool would leave nothing).
   */
  static final int MAX_STAGES = 8;

  /** What {@value #INPUT_SHAPE} means when empty. */
  private static final Shape FASHION_MNIST = new Shape(1, 28, 28);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, Object> hyperparameterDefaults() {
    return Map.of(
        TrainingHyperparameters.LR,
        2e-3,
        TrainingHyperparameters.BATCH_SIZE,
        128L,
        WIDTH,
        16L,
        HIDDEN,
        128L,
        DROPOUT,
        0.25,
        STAGES,
        2L,
        INPUT_SHAPE,
        "");
  }

  @Override
  public Shape inputShape() {
    return FASHION_MNIST;
  }

  @Override
  public Shape inputShape(Hyperparameters hp) {
    String shape = hp.getString(INPUT_SHAPE).strip();
    if (shape.isEmpty()) {
      return FASHION_MNIST;
    }
    int[] chw;
    try {
      chw = LabeledImages.parseShape(shape);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException("hyperparameters." + INPUT_SHAPE, e.getMessage());
    }
    return new Shape(chw[0], chw[1], chw[2]);
  }

  /** Takes the table's image shape, which a set {@value #INPUT_SHAPE} must equal. */
  @Override
  public Hyperparameters fitTo(Hyperparameters hp, DataShape data) {
    boolean set = !hp.getString(INPUT_SHAPE).isBlank();
    if (data.kind() != DataShape.Kind.IMAGES || (set && !data.example().equals(inputShape(hp)))) {
      throw data.notTakenBy(
          NAME,
          set ? "images of shape " + inputShape(hp) + " (hyperparameters.input_shape)" : "images");
    }
    data.requireAtMostClasses(NAME, numClasses());
    Shape example = data.example();
    int smaller = (int) Math.min(example.get(1), example.get(2));
    int stages = hp.getInt(STAGES);
    if (smaller >> stages < 1) {
      throw new InvalidFieldException(
          "hyperparameters." + STAGES,
          stages
              + " pooling stages halve the "
              + data.examples()
              + " of "
              + data.subject()
              + " to nothing; at most "
              + (31 - Integer.numberOfLeadingZeros(smaller)));
    }
    return set
        ? hp
        : hp.with(
            INPUT_SHAPE,
            LabeledImages.shape((int) example.get(0), (int) example.get(1), (int) example.get(2)));
  }

  @Override
  public int numClasses() {
    return 10;
  }

  @Override
  public Block build(Hyperparameters hp) {
    int width = hp.getInt(WIDTH);
    int hidden = hp.getInt(HIDDEN);
    float dropout = (float) hp.getDouble(DROPOUT);
    int stages = hp.getInt(STAGES);
    if (width < 1 || width > 1024) {
      throw new InvalidFieldException(
          "hyperparameters." + WIDTH, "must be in [1, 1024], got " + width);
    }
    if (hidden < 1 || hidden > 65536) {
      throw new InvalidFieldException(
          "hyperparameters." + HIDDEN, "must be in [1, 65536], got " + hidden);
    }
    if (!(dropout >= 0 && dropout < 1)) {
      throw new InvalidFieldException(
          "hyperparameters." + DROPOUT, "must be in [0, 1), got " + dropout);
    }
    if (stages < 1 || stages > MAX_STAGES) {
      throw new InvalidFieldException(
          "hyperparameters." + STAGES, "must be in [1, " + MAX_STAGES + "], got " + stages);
    }
    if ((long) width << (stages - 1) > 4096) {
      throw new InvalidFieldException(
          "hyperparameters." + WIDTH,
          "width "
              + width
              + " gives "
              + ((long) width << (stages - 1))
              + " channels in stage "
              + stages
              + "; at most 4096");
    }
    SequentialBlock net = new SequentialBlock();
    for (int stage = 0; stage < stages; stage++) {
      convStage(net, width << stage);
    }
    net.add(Blocks.batchFlattenBlock());
    if (dropout > 0) {
      net.add(Dropout.builder().optRate(dropout).build());
    }
    net.add(Linear.builder().setUnits(hidden).build());
    net.add(Activation.reluBlock());
    if (dropout > 0) {
      net.add(Dropout.builder().optRate(dropout).build());
    }
    net.add(Linear.builder().setUnits(numClasses()).build());
    return net;
  }

  private static void convStage(SequentialBlock net, int channels) {
    net.add(
        Conv2d.builder()
            .setKernelShape(new Shape(3, 3))
            .optPadding(new Shape(1, 1))
            .setFilters(channels)
            .build());
    net.add(BatchNorm.builder().build());
    net.add(Activation.reluBlock());
    net.add(Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2)));
  }
}
