package dev.keel.gpu.testing;

import com.google.protobuf.Value;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import java.nio.file.Path;

/** Train requests for tests. */
public final class Requests {
  private Requests() {}

  /** As workflows send them: with the default validation rule (row-id hash, per label). */
  public static TrainRequest.Builder fashionCnn(Path checkpointRoot, long targetBatches) {
    return TrainRequest.newBuilder()
        .setValidation(
            ConfigDefaults.withDefaults(ExperimentConfig.getDefaultInstance()).getValidation())
        .setExperimentId("exp-test")
        .setTrialId("trial-1")
        .setData(FashionMnist.TABLE)
        .setModel(ModelSpec.newBuilder().setName("fashion_cnn"))
        .setSeed(7)
        .setTargetBatches(targetBatches)
        .setCheckpointRoot(checkpointRoot.toUri().toString())
        .setThreads(1);
  }

  /** {@code tabular_mlp} on {@code table}, small enough to train in seconds. */
  public static TrainRequest.Builder tabularMlp(
      TableRef table, Path checkpointRoot, long targetBatches) {
    return fashionCnn(checkpointRoot, targetBatches)
        .setData(table)
        .setModel(ModelSpec.newBuilder().setName("tabular_mlp"))
        .putHparams("hidden_units", num(64))
        .putHparams("batch_size", num(64));
  }

  /**
   * A TorchScript {@code module} trained on a features table: batches of 32 at learning rate 0.01,
   * nothing else set.
   */
  public static TrainRequest.Builder torchScriptOnFeatures(
      TableRef table, Path checkpointRoot, Path module, long targetBatches) {
    return tabularMlp(table, checkpointRoot, targetBatches)
        .setModel(ModelSpec.newBuilder().setTorchscript(module.toString()))
        .clearHparams()
        .putHparams("batch_size", num(32))
        .putHparams("lr", num(1e-2));
  }

  public static Value num(double v) {
    return Value.newBuilder().setNumberValue(v).build();
  }

  public static Value str(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }
}
