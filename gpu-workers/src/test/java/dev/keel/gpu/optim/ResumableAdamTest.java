package dev.keel.gpu.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.optimizer.Adam;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ResumableAdamTest {

  @Test
  void matchesDjlAdamAndResumesFromSavedState() throws IOException {
    try (NDManager m = NDManager.newBaseManager()) {
      float[] init = {0.5f, -1f, 2f, 0.25f};
      float[][] grads = {
        {0.1f, -0.2f, 0.3f, 1f}, {-0.5f, 0.2f, 0.1f, 0f}, {0.3f, 0.3f, -0.3f, 2f}, {1f, 1f, 1f, 1f}
      };
      NDArray djlWeight = m.create(init);
      NDArray ours = m.create(init);
      Adam djl = Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.01f)).build();
      ResumableAdam adam = new ResumableAdam(0.01f, 0f);
      for (int i = 0; i < 2; i++) {
        djl.update("w", djlWeight, m.create(grads[i]));
        adam.update("w", ours, m.create(grads[i]));
      }
      ByteArrayOutputStream saved = new ByteArrayOutputStream();
      adam.saveState(new DataOutputStream(saved));
      ResumableAdam resumed = new ResumableAdam(0.01f, 0f);
      resumed.loadState(m, new DataInputStream(new ByteArrayInputStream(saved.toByteArray())));
      assertEquals(2, resumed.steps("w"));
      NDArray resumedWeight = ours.duplicate();
      for (int i = 2; i < 4; i++) {
        djl.update("w", djlWeight, m.create(grads[i]));
        adam.update("w", ours, m.create(grads[i]));
        resumed.update("w", resumedWeight, m.create(grads[i]));
      }
      assertArrayEquals(djlWeight.toFloatArray(), ours.toFloatArray());
      assertArrayEquals(ours.toFloatArray(), resumedWeight.toFloatArray());
      adam.close();
      resumed.close();
    }
  }

  @Test
  void aCosineScheduleMatchesDjlAdamAndGoesOnAlongTheCurveAfterAResume() throws IOException {
    try (NDManager m = NDManager.newBaseManager()) {
      float[] init = {0.5f, -1f, 2f, 0.25f};
      float[][] grads = {
        {0.1f, -0.2f, 0.3f, 1f}, {-0.5f, 0.2f, 0.1f, 0f}, {0.3f, 0.3f, -0.3f, 2f}, {1f, 1f, 1f, 1f}
      };
      NDArray djlWeight = m.create(init);
      NDArray ours = m.create(init);
      NDArray constant = m.create(init);
      Adam djl = Optimizer.adam().optLearningRateTracker(cosine()).build();
      ResumableAdam adam = new ResumableAdam(cosine(), 0f);
      ResumableAdam fixed = new ResumableAdam(0.01f, 0f);
      for (int i = 0; i < 2; i++) {
        djl.update("w", djlWeight, m.create(grads[i]));
        adam.update("w", ours, m.create(grads[i]));
        fixed.update("w", constant, m.create(grads[i]));
      }
      ByteArrayOutputStream saved = new ByteArrayOutputStream();
      adam.saveState(new DataOutputStream(saved));
      ResumableAdam resumed = new ResumableAdam(cosine(), 0f);
      resumed.loadState(m, new DataInputStream(new ByteArrayInputStream(saved.toByteArray())));
      NDArray resumedWeight = ours.duplicate();
      for (int i = 2; i < 4; i++) { // update 4 is past the 3 of the decay: lr_min
        djl.update("w", djlWeight, m.create(grads[i]));
        adam.update("w", ours, m.create(grads[i]));
        resumed.update("w", resumedWeight, m.create(grads[i]));
        fixed.update("w", constant, m.create(grads[i]));
      }
      assertArrayEquals(djlWeight.toFloatArray(), ours.toFloatArray());
      assertArrayEquals(ours.toFloatArray(), resumedWeight.toFloatArray());
      assertNotEquals(constant.getFloat(0), ours.getFloat(0), "the schedule changed the updates");
      adam.close();
      resumed.close();
      fixed.close();
    }
  }

  private static Tracker cosine() {
    return Tracker.cosine().setBaseValue(0.01f).optFinalValue(0.001f).setMaxUpdates(3).build();
  }

  @Test
  void refusesStateOfAnotherOptimizer() throws IOException {
    try (NDManager m = NDManager.newBaseManager();
        ResumableSgd sgd = new ResumableSgd(0.1f, 0.9f, 0f);
        ResumableAdam adam = new ResumableAdam(0.1f, 0f)) {
      sgd.update("w", m.create(new float[] {1f}), m.create(new float[] {1f}));
      ByteArrayOutputStream saved = new ByteArrayOutputStream();
      sgd.saveState(new DataOutputStream(saved));
      IOException e =
          assertThrows(
              IOException.class,
              () ->
                  adam.loadState(
                      m, new DataInputStream(new ByteArrayInputStream(saved.toByteArray()))));
      assertEquals("optimizer state is for 'sgd' but this trial uses 'adam'", e.getMessage());
    }
  }
}
