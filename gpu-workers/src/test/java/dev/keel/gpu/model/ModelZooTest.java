package dev.keel.gpu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.testing.TinyMlp;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelZooTest {
  private final ModelZoo registry = ModelZoo.withBuiltIns();

  @Test
  void resolvesBuiltInByNameAndEmptySpecToFashionCnn() {
    assertInstanceOf(
        FashionCnn.class, registry.resolve(ModelSpec.newBuilder().setName("fashion_cnn").build()));
    assertInstanceOf(FashionCnn.class, registry.resolve(ModelSpec.getDefaultInstance()));
  }

  @Test
  void resolvesUserClassByReflection() {
    KeelModel m =
        registry.resolve(ModelSpec.newBuilder().setClass_(TinyMlp.class.getName()).build());
    assertEquals("tiny_mlp", m.name());
  }

  @Test
  void unknownNameMissingClassAndNonModelClassAreClearErrors() {
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () -> registry.resolve(ModelSpec.newBuilder().setName("resnet9000").build()));
    assertEquals("model.name", e.field());
    assertTrue(
        e.getMessage().contains("unknown model 'resnet9000' (built-in: fashion_cnn"),
        e.getMessage());

    e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                registry.resolve(ModelSpec.newBuilder().setClass_("com.example.Missing").build()));
    assertEquals(
        "model.class: class com.example.Missing not found on the worker's classpath",
        e.getMessage());

    e =
        assertThrows(
            InvalidFieldException.class,
            () -> registry.resolve(ModelSpec.newBuilder().setClass_("java.lang.String").build()));
    assertEquals(
        "model.class: java.lang.String does not implement dev.keel.gpu.model.KeelModel",
        e.getMessage());
  }

  @Test
  void unknownHyperparameterIsRejectedNamingIt() {
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                Hyperparameters.resolve(
                    new FashionCnn(), Map.of(), Map.of("foo", Requests.num(1))));
    assertEquals("hyperparameters.foo", e.field());
    assertEquals(
        "hyperparameters.foo: not used by model fashion_cnn (accepts: augment, batch_size, dropout, hidden, input_mean,"
            + " input_shape, input_std, label_smoothing, loss, lr, lr_decay_batches, lr_min, lr_schedule, momentum,"
            + " optimizer, stages, weight_decay, width)",
        e.getMessage());
  }

  @Test
  void mistypedHyperparametersAreRejected() {
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                Hyperparameters.resolve(
                    new FashionCnn(), Map.of(), Map.of("batch_size", Requests.num(12.5))));
    assertEquals("hyperparameters.batch_size: expected an integer, got 12.5", e.getMessage());
    e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                Hyperparameters.resolve(
                    new FashionCnn(), Map.of(), Map.of("lr", Requests.str("fast"))));
    assertEquals("hyperparameters.lr: expected a number, got string", e.getMessage());
  }

  @Test
  void defaultsParamsAndHparamsMerge() {
    Map<String, Value> params =
        Struct.newBuilder().putFields("width", Requests.num(8)).build().getFieldsMap();
    Hyperparameters hp =
        Hyperparameters.resolve(new FashionCnn(), params, Map.of("lr", Requests.num(0.01)));
    assertEquals(8, hp.getInt("width"));
    assertEquals(0.01, hp.getDouble("lr"));
    assertEquals(128, hp.getInt("batch_size"));
    assertEquals("adam", hp.getString("optimizer"));
  }
}
