package dev.keel.service.interception;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import java.util.function.Function;

/**
 * A worker interceptor that wraps every activity call this worker runs, knowing which activity it
 * is and for which workflow: the SDK hands the context to {@code init} and the call to {@code
 * execute}; this joins them so that an interceptor only says what it does around the call.
 */
public abstract class AroundActivity extends WorkerInterceptorBase {
  /**
   * Runs {@code call} (the activity, and the interceptors after this one) on {@code input}, with
   * whatever this interceptor does before and after it.
   */
  protected abstract ActivityOutput around(
      ActivityInfo info, ActivityInput input, Function<ActivityInput, ActivityOutput> call);

  @Override
  public final ActivityInboundCallsInterceptor interceptActivity(
      ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityExecutionContext context;

      @Override
      public void init(ActivityExecutionContext context) {
        this.context = context;
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        return around(context.getInfo(), input, super::execute);
      }
    };
  }
}
