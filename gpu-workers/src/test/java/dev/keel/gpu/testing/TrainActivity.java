package dev.keel.gpu.testing;

import dev.keel.activities.train.TrainingActivities;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.TrainResult;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.tables.DeltaDatasetReader;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;

/** The real {@code Train} activity, run once in Temporal's activity test environment. */
public final class TrainActivity {
  private TrainActivity() {}

  /** Trains {@code request} with the built-in models, in one attempt of at most 5 minutes. */
  public static TrainResult runOnce(TrainRequest request) {
    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    try {
      env.registerActivitiesImplementations(
          new TrainingActivitiesImpl(
              new DeltaDatasetReader(), ModelZoo.withBuiltIns(), Duration.ofSeconds(1)));
      return env.newActivityStub(
              TrainingActivities.class,
              ActivityOptions.newBuilder()
                  .setStartToCloseTimeout(Duration.ofMinutes(5))
                  .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                  .build())
          .train(request);
    } finally {
      env.close();
    }
  }
}
