package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.storage.testing.TestDirs;
import org.junit.jupiter.api.Test;

class NonFiniteLossTest {

  private static KeelFailure train(String optimizer, double lr) throws Exception {
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
            TrainingPlan.from(request, ModelZoo.withBuiltIns()),
            FashionMnist.train(),
            ProgressListener.NONE);
    KeelFailure f = assertThrows(KeelFailure.class, trainer::run);
    assertEquals(FailureTypes.INVALID_HYPERPARAMETER, f.type());
    assertFalse(f.retryable());
    return f;
  }

  @Test
  void absurdLearningRateGivesNaNLoss() throws Exception {
    String m = train("sgd", 1e30).getMessage();
    assertTrue(
        m.matches(
            "trial t-nan: loss is NaN at batch \\d+ \\(lr=1.0E30\\): invalid hyperparameters"),
        m);
  }

  @Test
  void learningRateOfAMillionDivergesAndFailsTheSameWay() throws Exception {
    // Adam keeps the loss finite (~1e20) at lr=1e6; SGD reaches ~1e18 at batch 2.
    String m = train("adam", 1e6).getMessage();
    assertTrue(
        m.matches(
            "trial t-nan: loss diverged to \\S+ at batch \\d+ \\(lr=1000000.0\\): invalid hyperparameters"),
        m);
  }
}
