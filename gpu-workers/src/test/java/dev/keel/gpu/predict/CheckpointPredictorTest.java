package dev.keel.gpu.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.Metrics;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.dataset.LabeledImages;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CheckpointPredictorTest {

  @Test
  void predictsTheTestSplitFromAVerifiedCheckpointAndRefusesACorruptOne() throws Exception {
    var request =
        Requests.fashionCnn(TestDirs.create("predict"), 150)
            .putHparams("width", Requests.num(8))
            .putHparams("batch_size", Requests.num(64))
            .build();
    TrainingOutcome out =
        new Trainer(
                TrainingPlan.from(request, ModelZoo.withBuiltIns()),
                FashionMnist.train(),
                ProgressListener.NONE)
            .run();
    CheckpointRef ref = out.checkpoint();
    LabeledImages test = FashionMnist.test();

    Predictions p;
    try (CheckpointPredictor predictor =
        CheckpointPredictor.open(ref.getUri(), ModelZoo.withBuiltIns(), 1)) {
      assertEquals(150, predictor.metadata().batches());
      p = predictor.predict(test, 777);
      Predictions again = predictor.predict(test);
      assertEquals(Arrays.toString(p.labels()), Arrays.toString(again.labels()));
    }
    assertEquals(test.size(), p.size());
    double accuracy = p.accuracy(test.labels());
    assertTrue(accuracy > 0.7, "test accuracy " + accuracy);
    assertEquals(out.validationMetrics().get(Metrics.VALIDATION_ACCURACY), accuracy, 0.05);
    for (float s : p.scores()) {
      assertTrue(s >= 0.1f && s <= 1f, "softmax max prob " + s);
    }

    Path params = Path.of(URI.create(ref.getUri())).resolve(CheckpointFiles.PARAMETERS);
    byte[] bytes = Files.readAllBytes(params);
    bytes[100] ^= 0x40;
    Files.write(params, bytes);
    CorruptCheckpointException e =
        assertThrows(CorruptCheckpointException.class, () -> CheckpointPredictor.open(ref));
    assertEquals(CheckpointFiles.PARAMETERS, e.file());
  }
}
