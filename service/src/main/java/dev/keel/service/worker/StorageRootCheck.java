package dev.keel.service.worker;

import dev.keel.activities.FailureTypes;
import dev.keel.storage.StorageRoot;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import java.util.Optional;

/**
 * Refuses, without retries, an activity whose run names a storage root ({@link StorageRootPropagator})
 * other than the one this worker serves, naming both: run on, it would write the run's tables,
 * checkpoints or predictions under a root the rest of the run never reads. Activities of runs that
 * name no root run as before, on the worker's root.
 */
final class StorageRootCheck extends WorkerInterceptorBase {
  private final StorageRoot served;

  StorageRootCheck(StorageRoot served) {
    this.served = served;
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityExecutionContext context;

      @Override
      public void init(ActivityExecutionContext context) {
        this.context = context;
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        Optional<String> wanted = StorageRootPropagator.rootIn(input.getHeader().getValues());
        if (wanted.isPresent() && !wanted.get().equals(served.toString())) {
          ActivityInfo info = context.getInfo();
          throw ApplicationFailure.newNonRetryableFailure(mismatch(info.getActivityType(), info.getWorkflowId(),
              wanted.get(), served.toString()), FailureTypes.STORAGE_ROOT_MISMATCH);
        }
        return super.execute(input);
      }
    };
  }

  static String mismatch(String activity, String workflowId, String wanted, String served) {
    return "activity " + activity + " of " + workflowId + " belongs to storage root " + wanted
        + ", but the worker that picked it up serves " + served + ": start every worker of the run's task queues"
        + " with --storage " + wanted + " (or start the run with the workers' root)";
  }
}
