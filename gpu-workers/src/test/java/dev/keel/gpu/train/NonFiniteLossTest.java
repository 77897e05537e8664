package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.gpu.model.ModelRegistry;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.storage.testing.TestDirs;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

class NonFiniteLossTest {

  private static ApplicationFailure train(String optimizer, double lr) throws Exception {
    var request =
        Requests.fashionCnn(TestDirs.create("nan"), 200)
            .setTrialId("t-nan")
            .putHparams("lr", Requests.num(lr))
            .putHparams("optimizer", Requests.str(optimizer))
            .putHparams("width", Requests.num(4))
            .putHparams("batch_size", Requests.num(32))
            .build();
    Trainer trainer =
        new Trainer(
            TrainingPlan.from(request, ModelRegistry.withBuiltIns()),
            FashionMnist.train(),
            ProgressListener.NONE);
    ApplicationFailure f = assertThrows(ApplicationFailure.class, trainer::run);
    assertEquals(FailureTypes.INVALID_HYPERPARAMETER, f.getType());
    assertTrue(f.isNonRetryable());
    return f;
  }

  @Test
  void absurdLearningRateGivesNaNLoss() throws Exception {
    String m = train("sgd", 1e30).getOriginalMessage();
    assertTrue(
        m.matches(
            "trial t-nan: loss is NaN at batch \\d+ \\(lr=1.0E30\\): invalid hyperparameters"),
        m);
  }

  @Test
  void learningRateOfAMillionDivergesAndFailsTheSameWay() throws Exception {
    // Adam keeps the loss finite (~1e20) at lr=1e6; SGD reaches ~1e18 at batch 2.
    String m = train("adam", 1e6).getOriginalMessage();
    assertTrue(
        m.matches(
            "trial t-nan: loss diverged to \\S+ at batch \\d+ \\(lr=1000000.0\\): invalid hyperparameters"),
        m);
  }
}
