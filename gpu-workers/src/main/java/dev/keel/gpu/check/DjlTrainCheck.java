package dev.keel.gpu.check;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.repository.zoo.Criteria;
import ai.djl.repository.zoo.ZooModel;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A few SGD steps of a TorchScript model through DJL, as Keel's trainer loads user models: {@code
 * trainParam} makes its parameters trainable. The target is zero, so a working backward pass and
 * step must lower the loss whatever the model's weights.
 */
final class DjlTrainCheck {
  /** The input width of the model gpu-check.sh writes. */
  static final int FEATURES = 8;

  private static final int BATCH = 32;

  private DjlTrainCheck() {}

  /**
   * @return {@code 5 steps on gpu(0): loss 0.41 -> 0.30}
   * @throws IllegalStateException when the loss is not finite or did not fall
   */
  static String train(Path torchscript, boolean gpu, int steps) throws Exception {
    Device device = gpu ? Device.gpu() : Device.cpu();
    Criteria<NDList, NDList> criteria =
        Criteria.builder()
            .setTypes(NDList.class, NDList.class)
            .optModelPath(torchscript)
            .optEngine("PyTorch")
            .optDevice(device)
            .optOption("trainParam", "true")
            .build();
    try (ZooModel<NDList, NDList> model = criteria.loadModel()) {
      return steps(model, device, steps);
    }
  }

  private static String steps(Model model, Device device, int steps) {
    DefaultTrainingConfig config =
        new DefaultTrainingConfig(Loss.l2Loss())
            .optDevices(new Device[] {device})
            .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).build());
    try (Trainer trainer = model.newTrainer(config)) {
      NDManager manager = trainer.getManager();
      manager.getEngine().setRandomSeed(7);
      NDArray x = manager.randomNormal(new Shape(BATCH, FEATURES)).toDevice(device, false);
      float first = Float.NaN;
      float last = Float.NaN;
      for (int i = 0; i < steps; i++) {
        try (GradientCollector collector = trainer.newGradientCollector()) {
          NDArray prediction = trainer.forward(new NDList(x)).singletonOrThrow();
          NDArray loss =
              trainer
                  .getLoss()
                  .evaluate(new NDList(prediction.zerosLike()), new NDList(prediction));
          last = loss.getFloat();
          if (i == 0) {
            first = last;
          }
          collector.backward(loss);
        }
        trainer.step();
      }
      String what =
          String.format(
              Locale.ROOT, "%d steps on %s: loss %.4g -> %.4g", steps, x.getDevice(), first, last);
      if (!Float.isFinite(first) || !Float.isFinite(last) || !(last < first)) {
        throw new IllegalStateException("the loss did not fall: " + what);
      }
      return what;
    }
  }
}
