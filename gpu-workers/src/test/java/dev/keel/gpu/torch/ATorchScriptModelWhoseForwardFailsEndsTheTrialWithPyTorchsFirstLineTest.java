package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnistFeatures;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A user's module that cannot take the table's rows (an mlp exported for 10 features, a table of
 * 49) fails the trial with PyTorch's own error line and the shape it was given, not a JNI stack,
 * and the failure is not retried: the same file fails the same way every time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ATorchScriptModelWhoseForwardFailsEndsTheTrialWithPyTorchsFirstLineTest {
  private Path root;
  private TableRef table;
  private LabeledExamples train;
  private Path tenFeatures;

  @BeforeAll
  void setUp() throws IOException {
    root = TestDirs.create("torchscript-forward-fails");
    table = FashionMnistFeatures.write(root.resolve("table"), 4, 2000, 300);
    train = new DeltaDatasetReader().readExamples(table, "train");
    tenFeatures = PyTorchFixtures.mlp(root.resolve("models"), 10, 10, 16, 0);
  }

  @Test
  void theTrainerRefusesTheTableWithRuntimeErrorAndTheShapeItTried() {
    InvalidFieldException e =
        assertThrows(
            InvalidFieldException.class,
            () ->
                new Trainer(
                        TrainingPlan.from(request().build(), ModelZoo.withBuiltIns()),
                        train,
                        ProgressListener.NONE)
                    .run());
    assertEquals("data", e.field());
    String m = e.getMessage();
    assertTrue(m.contains(tenFeatures.toString()), m);
    assertTrue(m.contains("(1, 49)"), m);
    assertTrue(m.contains("RuntimeError: "), m);
    assertTrue(m.contains("1x49"), "PyTorch's own shapes: " + m);
    assertPyTorchsLineOnly(m);
  }

  @Test
  void aBatchTheModuleCannotTakeFailsTheStepNamingTheFileAndTheBatchShape() {
    KeelModel model =
        ModelZoo.withBuiltIns()
            .resolve(ModelSpec.newBuilder().setTorchscript(tenFeatures.toString()).build());
    Hyperparameters hp = Hyperparameters.resolve(model, Map.of(), Map.of());
    try (TrainableModel m = TrainableModel.initialize(model, hp, 1);
        NDManager step = m.manager().newSubManager()) {
      NDArray rows = step.ones(new Shape(32, 49));
      NDArray labels = step.zeros(new Shape(32), ai.djl.ndarray.types.DataType.INT64);
      InvalidFieldException e =
          assertThrows(InvalidFieldException.class, () -> m.trainStep(rows, labels));
      assertEquals("model.torchscript", e.field());
      String msg = e.getMessage();
      assertTrue(msg.contains(tenFeatures + " failed on a batch of shape (32, 49)"), msg);
      assertTrue(msg.contains("RuntimeError: "), msg);
      assertTrue(msg.contains("32x49"), msg);
      assertPyTorchsLineOnly(msg);

      // the same model still scores rows it can take
      NDArray fits = step.ones(new Shape(4, 10));
      assertEquals(new Shape(4, 10), m.logits(fits).getShape());
    }
  }

  @Test
  void theActivityFailsWithoutRetryingAndWithPyTorchsLine() {
    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    try {
      env.registerActivitiesImplementations(
          new TrainingActivitiesImpl(
              new DeltaDatasetReader(), ModelZoo.withBuiltIns(), Duration.ZERO));
      TrainingActivities activities =
          env.newActivityStub(
              TrainingActivities.class,
              ActivityOptions.newBuilder()
                  .setStartToCloseTimeout(Duration.ofMinutes(5))
                  .setHeartbeatTimeout(Duration.ofMinutes(1))
                  .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
                  .build());
      ActivityFailure f =
          assertThrows(ActivityFailure.class, () -> activities.train(request().build()));
      ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, f.getCause());
      assertTrue(cause.isNonRetryable(), cause.toString());
      assertEquals(FailureTypes.INVALID_TRAIN_REQUEST, cause.getType());
      String m = cause.getOriginalMessage();
      assertTrue(m.startsWith("data: "), m);
      assertTrue(m.contains("RuntimeError: ") && m.contains("(1, 49)"), m);
      assertPyTorchsLineOnly(m);
    } finally {
      env.close();
    }
  }

  private static void assertPyTorchsLineOnly(String m) {
    assertFalse(m.contains("at ai.djl"), m);
    assertFalse(m.contains("\tat "), m);
    assertFalse(m.contains("frame #"), "a C++ stack: " + m);
    assertFalse(m.contains("Traceback"), "TorchScript's traceback, not its last line: " + m);
    assertFalse(m.contains("\n"), "more than one line: " + m);
  }

  private TrainRequest.Builder request() {
    return Requests.tabularMlp(table, root.resolve("checkpoints"), 10)
        .setModel(ModelSpec.newBuilder().setTorchscript(tenFeatures.toString()))
        .clearHparams()
        .putHparams("batch_size", Requests.num(32));
  }
}
