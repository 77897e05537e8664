package dev.keel.service.worker;

import dev.keel.activities.FailureTypes;
import dev.keel.service.interception.AroundActivity;
import dev.keel.storage.StorageRoot;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.failure.ApplicationFailure;
import java.util.Optional;
import java.util.function.Function;

/**
 * Refuses, without retries, an activity whose run names a storage root ({@link
 * StorageRootPropagator}) other than the one this worker serves, naming both: run on, it would
 * write the run's tables, checkpoints or predictions under a root the rest of the run never reads.
 * Activities of runs that name no root run as before, on the worker's root.
 */
final class StorageRootCheck extends AroundActivity {
  private final StorageRoot served;

  StorageRootCheck(StorageRoot served) {
    this.served = served;
  }

  @Override
  protected ActivityOutput around(
      ActivityInfo info, ActivityInput input, Function<ActivityInput, ActivityOutput> call) {
    Optional<String> wanted = StorageRootPropagator.rootIn(input.getHeader().getValues());
    if (wanted.isPresent() && !wanted.get().equals(served.toString())) {
      throw ApplicationFailure.newNonRetryableFailure(
          mismatch(info.getActivityType(), info.getWorkflowId(), wanted.get(), served.toString()),
          FailureTypes.STORAGE_ROOT_MISMATCH);
    }
    return call.apply(input);
  }

  static String mismatch(String activity, String workflowId, String wanted, String served) {
    return "activity "
        + activity
        + " of "
        + workflowId
        + " belongs to storage root "
        + wanted
        + ", but the worker that picked it up serves "
        + served
        + ": start every worker of the run's task queues"
        + " with --storage "
        + wanted
        + " (or start the run with the workers' root)";
  }
}
