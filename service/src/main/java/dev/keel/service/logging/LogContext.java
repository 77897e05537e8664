package dev.keel.service.logging;

import dev.keel.service.interception.AroundActivity;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.MDC;

/**
 * Puts the Keel ids of the run an activity works for ({@code experiment_id}, {@code trial_id},
 * {@code pipeline_id}) into the logging context while it runs, beside the {@code WorkflowId} and
 * {@code ActivityType} Temporal's SDK puts there: every line a training, ETL or inference worker
 * logs for a run can be found by its ids (the text format shows them in brackets, {@code
 * KEEL_LOG_FORMAT=json} as fields).
 */
public final class LogContext extends AroundActivity {
  public static final String EXPERIMENT_ID = "experiment_id";
  public static final String TRIAL_ID = "trial_id";
  public static final String PIPELINE_ID = "pipeline_id";

  /** All of them as one {@code key=value ...} text, for the text log format. */
  public static final String IDS = "keel_ids";

  @Override
  protected ActivityOutput around(
      ActivityInfo info, ActivityInput input, Function<ActivityInput, ActivityOutput> call) {
    Map<String, String> ids = ids(info.getWorkflowType(), info.getWorkflowId());
    ids.forEach(MDC::put);
    if (!ids.isEmpty()) {
      StringBuilder text = new StringBuilder();
      ids.forEach(
          (k, v) -> text.append(text.length() == 0 ? "" : " ").append(k).append('=').append(v));
      MDC.put(IDS, text.toString());
    }
    try {
      return call.apply(input);
    } finally {
      ids.keySet().forEach(MDC::remove);
      MDC.remove(IDS);
    }
  }

  /**
   * The Keel ids a workflow of {@code type} and {@code workflowId} stands for: a trial ({@code
   * <experiment>/trial-<n>}), an experiment, a pipeline, or a pipeline's child ({@code
   * <pipeline>/inference}).
   */
  static Map<String, String> ids(String type, String workflowId) {
    Map<String, String> out = new LinkedHashMap<>();
    int slash = workflowId.lastIndexOf('/');
    if (TrialWorkflow.TYPE.equals(type)
        && slash > 0
        && workflowId.startsWith("trial-", slash + 1)) {
      out.put(EXPERIMENT_ID, workflowId.substring(0, slash));
      out.put(TRIAL_ID, workflowId.substring(slash + "/trial-".length()));
    } else if (ExperimentWorkflow.TYPE.equals(type)) {
      out.put(EXPERIMENT_ID, workflowId);
    } else if (PipelineWorkflow.TYPE.equals(type)) {
      out.put(PIPELINE_ID, workflowId);
    } else if (slash > 0) {
      out.put(
          PIPELINE_ID,
          workflowId.substring(0, slash)); // a pipeline's inference or evaluation child
    }
    return out;
  }
}
