package dev.keel.gpu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;
import dev.keel.gpu.testing.Requests;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FashionCnnStagesDoubleChannelsAndHalveTheImageTest {
  private static Block build(long stages, long width) {
    return new FashionCnn()
        .build(
            Hyperparameters.resolve(
                new FashionCnn(),
                Map.of(),
                Map.of(
                    "stages",
                    Requests.num((double) stages),
                    "width",
                    Requests.num((double) width),
                    "hidden",
                    Requests.num(32))));
  }

  /**
   * The conv kernels' shapes, in order, and the dense layer's input width, after initializing on a
   * batch.
   */
  private static String shapes(long stages, long width) {
    try (NDManager m = NDManager.newBaseManager()) {
      Block net = build(stages, width);
      net.initialize(m, DataType.FLOAT32, new Shape(2, 1, 28, 28));
      StringBuilder out = new StringBuilder();
      PairList<String, Parameter> params = net.getParameters();
      for (int i = 0; i < params.size(); i++) {
        Parameter p = params.get(i).getValue();
        if (p.getType() == Parameter.Type.WEIGHT && p.getArray().getShape().dimension() != 1) {
          out.append(p.getArray().getShape()).append(' ');
        }
      }
      Shape logits =
          net.forward(
                  new ParameterStore(m, false), new NDList(m.ones(new Shape(2, 1, 28, 28))), false)
              .singletonOrThrow()
              .getShape();
      return out.toString().strip() + " -> " + logits;
    }
  }

  @Test
  void twoStagesAreTheDefaultAndEachStageDoublesTheChannels() {
    // conv 1→8, conv 8→16, dense 16·7·7 → 32, dense 32 → 10
    assertEquals("(8, 1, 3, 3) (16, 8, 3, 3) (32, 784) (10, 32) -> (2, 10)", shapes(2, 8));
    assertEquals(2L, new FashionCnn().hyperparameterDefaults().get("stages"));
    // a third stage: 16→32 channels, 7×7 pooled to 3×3
    assertEquals(
        "(8, 1, 3, 3) (16, 8, 3, 3) (32, 16, 3, 3) (32, 288) (10, 32) -> (2, 10)", shapes(3, 8));
  }

  @Test
  void stagesOutsideOneToEightAreRefusedNamingTheField() {
    InvalidFieldException e = assertThrows(InvalidFieldException.class, () -> build(9, 8));
    assertEquals("hyperparameters.stages: must be in [1, 8], got 9", e.getMessage());
    e = assertThrows(InvalidFieldException.class, () -> build(0, 8));
    assertEquals("hyperparameters.stages: must be in [1, 8], got 0", e.getMessage());
  }

  private static Hyperparameters hp(long stages) {
    return Hyperparameters.resolve(
        new FashionCnn(),
        Map.of(),
        Map.of("stages", Requests.num((double) stages), "width", Requests.num(8)));
  }

  private static DataShape images(int channels, int side) {
    return new DataShape(
        "file:///t v0",
        DataShape.Kind.IMAGES,
        side + "x" + side + " images",
        new Shape(channels, side, side),
        10);
  }

  @Test
  void aFifthStageOnTwentyEightPixelImagesIsRefusedNamingHowManyFit() {
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class, () -> new FashionCnn().fitTo(hp(5), images(1, 28)));
    assertEquals(
        "hyperparameters.stages: 5 pooling stages halve the 28x28 images of table file:///t v0 to"
            + " nothing; at most 4",
        e.getMessage());
  }

  @Test
  void itLearnsAColourTablesShapeAndBuildsForIt() {
    FashionCnn cnn = new FashionCnn();
    Hyperparameters fitted = cnn.fitTo(hp(5), images(3, 32));
    assertEquals("3x32x32", fitted.getString(FashionCnn.INPUT_SHAPE));
    assertEquals(new Shape(3, 32, 32), cnn.inputShape(fitted));
    // fitting again is idempotent; a grey table no longer fits the recorded shape
    assertEquals(fitted.asMap(), cnn.fitTo(fitted, images(3, 32)).asMap());
    InvalidFieldException e =
        assertThrows(InvalidFieldException.class, () -> cnn.fitTo(fitted, images(1, 32)));
    assertEquals(
        "data: table file:///t v0 holds 32x32 images, but model fashion_cnn takes images of shape"
            + " (3, 32, 32) (hyperparameters.input_shape)",
        e.getMessage());
    try (NDManager m = NDManager.newBaseManager()) {
      Block net = cnn.build(fitted);
      net.initialize(m, DataType.FLOAT32, new Shape(2).addAll(cnn.inputShape(fitted)));
      Shape first = net.getParameters().get(0).getValue().getArray().getShape();
      assertEquals(new Shape(8, 3, 3, 3), first);
      Shape logits =
          net.forward(
                  new ParameterStore(m, false), new NDList(m.ones(new Shape(2, 3, 32, 32))), false)
              .singletonOrThrow()
              .getShape();
      assertEquals(new Shape(2, 10), logits);
    }
  }

  @Test
  void aCheckpointWithoutAnInputShapeTakesFashionMnistImages() {
    assertEquals(new Shape(1, 28, 28), new FashionCnn().inputShape(hp(2)));
  }
}
