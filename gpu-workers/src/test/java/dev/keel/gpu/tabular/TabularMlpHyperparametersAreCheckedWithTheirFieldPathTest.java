package dev.keel.gpu.tabular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.types.Shape;
import com.google.protobuf.Value;
import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.model.TabularMlp;
import dev.keel.gpu.testing.Requests;
import dev.keel.tables.dataset.LabeledFeatures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tabular_mlp}'s hyperparameters are refused with their field path before any tensor exists,
 * its sizes come from the table once and stay, and labels that name no class are refused naming the
 * table and the row.
 */
class TabularMlpHyperparametersAreCheckedWithTheirFieldPathTest {
  private final KeelModel mlp =
      ModelZoo.withBuiltIns().resolve(ModelSpec.newBuilder().setName("tabular_mlp").build());

  private Hyperparameters hp(String name, Value value) {
    return Hyperparameters.resolve(mlp, Map.of(), Map.of(name, value));
  }

  private static DataShape features(int width, int classes) {
    return new DataShape(
        "t v0",
        DataShape.Kind.FEATURES,
        "vectors of " + width + " features",
        new Shape(width),
        classes);
  }

  @Test
  void outOfRangeValuesNameTheirField() {
    assertEquals(
        "hyperparameters.hidden_layers",
        assertThrows(
                InvalidFieldException.class, () -> mlp.build(hp("hidden_layers", Requests.num(17))))
            .field());
    assertEquals(
        "hyperparameters.hidden_units",
        assertThrows(
                InvalidFieldException.class, () -> mlp.build(hp("hidden_units", Requests.num(0))))
            .field());
    assertEquals(
        "hyperparameters.dropout",
        assertThrows(InvalidFieldException.class, () -> mlp.build(hp("dropout", Requests.num(1))))
            .field());
    assertEquals(
        "hyperparameters.classes",
        assertThrows(InvalidFieldException.class, () -> mlp.build(hp("classes", Requests.num(1))))
            .field());
    InvalidFieldException notABoolean =
        assertThrows(InvalidFieldException.class, () -> hp("standardize", Requests.str("yes")));
    assertEquals(
        "hyperparameters.standardize: expected a boolean, got string", notABoolean.getMessage());
  }

  @Test
  void sizesComeFromTheTableOnceAndFittingAgainChangesNothing() {
    Hyperparameters fitted = mlp.fitTo(Hyperparameters.defaults(mlp), features(13, 3));
    assertEquals(13L, fitted.asMap().get(TabularMlp.FEATURES));
    assertEquals(3L, fitted.asMap().get(TabularMlp.CLASSES));
    assertEquals(new Shape(13), mlp.inputShape(fitted));
    assertEquals(fitted.asMap(), mlp.fitTo(fitted, features(13, 3)).asMap());
    assertEquals(
        fitted.asMap(),
        mlp.fitTo(fitted, features(13, 2)).asMap(),
        "fewer classes in a table to score fit");
    assertEquals(
        "data: table t v0 has 4 classes, but model tabular_mlp predicts 3 (hyperparameters.classes)",
        assertThrows(InvalidFieldException.class, () -> mlp.fitTo(fitted, features(13, 4)))
            .getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> mlp.inputShape(Hyperparameters.defaults(mlp)),
        "an unfitted tabular_mlp has no input shape");
    assertEquals(
        "data: table t v0 has 1 class(es); tabular_mlp needs at least 2",
        assertThrows(
                InvalidFieldException.class,
                () -> mlp.fitTo(Hyperparameters.defaults(mlp), features(13, 1)))
            .getMessage());
  }

  @Test
  void classesComeFromTheClassNamesAndALabelWithoutANameIsRefused() {
    LabeledFeatures named =
        new LabeledFeatures(
            new long[] {10, 11},
            new int[] {0, 0},
            new float[] {1, 2},
            1,
            List.of("x"),
            List.of("setosa", "versicolor", "virginica"));
    assertEquals(
        3,
        DataShape.of("iris v0", named).classes(),
        "the class names count, not the labels present");
    LabeledFeatures unnamed =
        new LabeledFeatures(
            new long[] {10, 11}, new int[] {0, 4}, new float[] {1, 2}, 1, List.of(), List.of());
    assertEquals(5, DataShape.of("iris v0", unnamed).classes());
    LabeledFeatures beyond =
        new LabeledFeatures(
            new long[] {10, 11},
            new int[] {0, 3},
            new float[] {1, 2},
            1,
            List.of(),
            List.of("setosa", "versicolor", "virginica"));
    assertEquals(
        "data: table iris v0: label 3 of id 11 has no class name (the table names 3 classes)",
        assertThrows(InvalidFieldException.class, () -> DataShape.of("iris v0", beyond))
            .getMessage());
    LabeledFeatures negative =
        new LabeledFeatures(
            new long[] {10}, new int[] {-1}, new float[] {1}, 1, List.of(), List.of());
    assertEquals(
        "data: table iris v0: label -1 of id 10 is negative",
        assertThrows(InvalidFieldException.class, () -> DataShape.of("iris v0", negative))
            .getMessage());
  }

  @Test
  void theRegistryKnowsBothBuiltIns() {
    assertSame(TabularMlp.class, mlp.getClass());
    assertEquals("tabular_mlp", mlp.name());
  }
}
