package dev.keel.workflows.experiment;

import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import io.temporal.activity.Activity;
import io.temporal.client.ActivityCompletionException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A test trainer that holds every step until the test opens its gate, heartbeating meanwhile, so a
 * test can pause, kill or inspect an experiment while trials are mid-step.
 */
final class GatedTrainingActivities implements TrainingActivities {
  final Set<String> training = ConcurrentHashMap.newKeySet();
  final Set<String> canceled = ConcurrentHashMap.newKeySet();
  final Map<String, Integer> steps = new ConcurrentHashMap<>();
  private final CountDownLatch gate = new CountDownLatch(1);

  void open() {
    gate.countDown();
  }

  @Override
  public TrainResult train(TrainRequest r) {
    training.add(r.getTrialId());
    steps.merge(r.getTrialId(), 1, Integer::sum);
    try {
      while (!gate.await(50, TimeUnit.MILLISECONDS)) {
        Activity.getExecutionContext().heartbeat(null);
      }
    } catch (ActivityCompletionException e) {
      canceled.add(r.getTrialId());
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      training.remove(r.getTrialId());
    }
    long batches = r.getTargetLength().getBatches();
    String uuid = r.getTrialId() + "-" + batches;
    return TrainResult.newBuilder()
        .setCheckpoint(
            CheckpointRef.newBuilder().setUuid(uuid).setUri("test://" + uuid).setBatches(batches))
        .putValidationMetrics(
            "validation_loss",
            FormulaTrainingActivities.loss(r.getHparamsOrThrow("lr").getNumberValue(), batches))
        .setBatches(batches)
        .setAttempt(1)
        .build();
  }
}
