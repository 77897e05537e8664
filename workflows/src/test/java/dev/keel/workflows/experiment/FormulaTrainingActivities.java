package dev.keel.workflows.experiment;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test trainer in the test's JVM: the "validation loss" is a closed formula of the
 * hyperparameters and the length, so hundreds of trials run in seconds and the best trial is known.
 * It can fail a trial's first attempts (a crashing worker) and rejects {@code lr > 1} as invalid
 * hyperparameters, like the real trainer's NaN check.
 */
public final class FormulaTrainingActivities implements TrainingActivities {
  final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  public final List<TrainRequest> requests = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Integer> failFirstAttempts;

  public FormulaTrainingActivities(Map<String, Integer> failFirstAttempts) {
    this.failFirstAttempts = failFirstAttempts;
  }

  static double loss(double lr, long batches) {
    return Math.pow(Math.log10(lr) + 2, 2) + 10.0 / (batches + 1);
  }

  @Override
  public TrainResult train(TrainRequest r) {
    calls.computeIfAbsent(r.getTrialId(), k -> new AtomicInteger()).incrementAndGet();
    requests.add(r);
    int attempt = Activity.getExecutionContext().getInfo().getAttempt();
    if (attempt <= failFirstAttempts.getOrDefault(r.getTrialId(), 0)) {
      throw new IllegalStateException(
          "worker of " + r.getTrialId() + " crashed (attempt " + attempt + ")");
    }
    double lr = r.getHparamsOrThrow("lr").getNumberValue();
    if (lr > 1) {
      throw ApplicationFailure.newNonRetryableFailure(
          "loss is NaN at batch 1 (lr=" + lr + ")", FailureTypes.INVALID_HYPERPARAMETER);
    }
    long batches = r.getBaseBatches() + r.getTargetLength().getBatches();
    String uuid = r.getExperimentId() + "-" + r.getTrialId() + "-" + batches;
    return TrainResult.newBuilder()
        .setCheckpoint(
            CheckpointRef.newBuilder()
                .setUuid(uuid)
                .setUri("test://" + uuid)
                .setTrialId(r.getTrialId())
                .setExperimentId(r.getExperimentId())
                .setBatches(batches)
                .setSizeBytes(1000))
        .putValidationMetrics("validation_loss", loss(lr, batches))
        .setBatches(batches)
        .setAttempt(attempt)
        .build();
  }
}
