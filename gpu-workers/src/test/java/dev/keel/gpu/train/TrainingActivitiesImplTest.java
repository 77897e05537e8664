package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.TestDirs;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TrainingActivitiesImplTest {
  private TestActivityEnvironment env;
  private TrainingActivities activities;
  private final List<TrainProgress> heartbeats = new CopyOnWriteArrayList<>();
  private Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = TestDirs.create("activity");
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new TrainingActivitiesImpl(FashionMnist.reader(), ModelZoo.withBuiltIns(), Duration.ZERO));
    env.setActivityHeartbeatListener(TrainProgress.class, heartbeats::add);
    activities =
        env.newActivityStub(
            TrainingActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(5))
                .setHeartbeatTimeout(Duration.ofMinutes(1))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private TrainRequest.Builder small(long target) {
    return Requests.fashionCnn(root, target)
        .setCheckpointEveryBatches(20)
        .putHparams("batch_size", Requests.num(32))
        .putHparams("width", Requests.num(4))
        .putHparams("hidden", Requests.num(16));
  }

  private CheckpointRef checkpointAt(long batches) throws Exception {
    CheckpointStorage storage = CheckpointStorage.forRoot(root.toUri().toString());
    try (var dirs = Files.list(root.resolve("exp-test").resolve("trial-1"))) {
      for (Path d : dirs.toList()) {
        VerifiedCheckpoint ck = VerifiedCheckpoint.open(storage, d.toUri().toString());
        if (ck.metadata().batches() == batches) {
          return ck.ref();
        }
      }
    }
    throw new AssertionError("no checkpoint at batch " + batches);
  }

  private ApplicationFailure failure(TrainRequest request) {
    ActivityFailure f = assertThrows(ActivityFailure.class, () -> activities.train(request));
    ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, f.getCause());
    assertTrue(cause.isNonRetryable(), cause.toString());
    return cause;
  }

  @Test
  void badFieldsAreNonRetryableFailuresNamingTheField() {
    ApplicationFailure f = failure(small(0).build());
    assertEquals(FailureTypes.INVALID_TRAIN_REQUEST, f.getType());
    assertEquals("target_batches: must be > 0, got 0", f.getOriginalMessage());

    f = failure(small(10).putHparams("foo", Requests.num(1)).build());
    assertTrue(
        f.getOriginalMessage()
            .startsWith(
                "hyperparameters.foo: not used by model fashion_cnn (accepts: augment, batch_size,"),
        f.getOriginalMessage());

    f = failure(small(10).putHparams("optimizer", Requests.str("lbfgs")).build());
    assertEquals(
        "hyperparameters.optimizer: unknown optimizer 'lbfgs' (accepts: adam, sgd)",
        f.getOriginalMessage());

    f = failure(small(10).putHparams("lr_schedule", Requests.str("cosine")).build());
    assertEquals(
        "hyperparameters.lr_decay_batches: must be a positive number of batches with lr_schedule cosine, got 0",
        f.getOriginalMessage());
    f = failure(small(10).putHparams("loss", Requests.str("hinge")).build());
    assertEquals(
        "hyperparameters.loss: unknown loss 'hinge' (accepts: softmax_cross_entropy, mse, l1, huber,"
            + " bce_with_logits)",
        f.getOriginalMessage());
    f = failure(small(10).putHparams("loss", Requests.str("mse")).build());
    assertTrue(
        f.getOriginalMessage()
            .matches(
                "hyperparameters\\.loss: 'mse' is a regression loss, but table .* is labelled"
                    + " for classification"),
        f.getOriginalMessage());
    f = failure(small(10).putHparams("label_smoothing", Requests.num(2)).build());
    assertEquals(
        "hyperparameters.label_smoothing: must be in [0, 1], got 2.0", f.getOriginalMessage());
    f = failure(small(10).putHparams("lr_schedule", Requests.str("step")).build());
    assertEquals(
        "hyperparameters.lr_schedule: unknown schedule 'step' (accepts: constant, cosine)",
        f.getOriginalMessage());

    f =
        failure(
            small(10).setData(TableRef.newBuilder().setUri("file:///nope").setVersion(3)).build());
    assertTrue(
        f.getOriginalMessage().startsWith("data: table file:///nope version 3 does not exist"),
        f.getOriginalMessage());

    f = failure(small(10).setCheckpointRoot("").build());
    assertEquals("checkpoint_root: required", f.getOriginalMessage());
  }

  @Test
  void heartbeatsProgressAndRetryResumesFromHeartbeatCheckpoint() throws Exception {
    TrainResult full = activities.train(small(60).build());
    assertEquals(60, full.getBatches());
    assertTrue(
        full.getValidationMetricsMap().get(Metrics.VALIDATION_ACCURACY) > 0.3, full.toString());
    // The SDK forwards heartbeats at most every 0.8 x heartbeat timeout: expect the first one.
    assertFalse(heartbeats.isEmpty());
    TrainProgress first = heartbeats.get(0);
    assertEquals(60, first.getTargetBatches());
    assertTrue(first.getBatches() >= 1 && first.getBatches() <= 60, first.toString());
    assertTrue(first.getBatchesPerSecond() > 0 && first.getLoss() > 0, first.toString());
    // Checkpoints every 20 batches: those before the final one come back for the catalog and GC,
    // and every heartbeat after a checkpoint lists all written so far.
    assertEquals(
        List.of(20L, 40L),
        full.getPeriodicCheckpointsList().stream().map(CheckpointRef::getBatches).toList());
    for (CheckpointRef c : full.getPeriodicCheckpointsList()) {
      VerifiedCheckpoint.open(c); // committed and complete
    }
    for (TrainProgress beat :
        heartbeats) { // (the SDK throttles them: only some reach the listener)
      List<CheckpointRef> written = beat.getWrittenCheckpointsList();
      assertEquals(beat.hasLastCheckpoint(), !written.isEmpty(), beat.toString());
      if (beat.hasLastCheckpoint()) {
        assertEquals(
            beat.getLastCheckpoint().getUuid(),
            written.get(written.size() - 1).getUuid(),
            beat.toString());
        assertEquals(written.size() * 20L, beat.getLastCheckpoint().getBatches(), beat.toString());
      }
    }

    // A retry of the same activity: heartbeat details carry the checkpoint at batch 40.
    CheckpointRef twentyRef = checkpointAt(20);
    CheckpointRef fortyRef = checkpointAt(40);
    TrainProgress atForty =
        TrainProgress.newBuilder()
            .setBatches(45)
            .setTargetBatches(60)
            .setLastCheckpoint(fortyRef)
            .addWrittenCheckpoints(twentyRef)
            .addWrittenCheckpoints(fortyRef)
            .build();
    env.close();
    heartbeats.clear();
    setUp();
    env.setHeartbeatDetails(atForty);
    TrainResult resumed = activities.train(small(60).build());
    assertEquals(41, heartbeats.get(0).getBatches(), "the retry should continue after batch 40");
    assertArrayEquals(
        Files.readAllBytes(
            Path.of(URI.create(full.getCheckpoint().getUri())).resolve(CheckpointFiles.PARAMETERS)),
        Files.readAllBytes(
            Path.of(URI.create(resumed.getCheckpoint().getUri()))
                .resolve(CheckpointFiles.PARAMETERS)));
    assertEquals(full.getValidationMetricsMap(), resumed.getValidationMetricsMap());
    assertFalse(resumed.getCheckpoint().getUuid().equals(full.getCheckpoint().getUuid()));
    // the first attempt's checkpoints are still accounted for
    assertEquals(
        List.of(twentyRef.getUuid(), fortyRef.getUuid()),
        resumed.getPeriodicCheckpointsList().stream().map(CheckpointRef::getUuid).toList());
  }
}
