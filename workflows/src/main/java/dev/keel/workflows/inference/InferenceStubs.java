package dev.keel.workflows.inference;

import dev.keel.activities.infer.InferenceActivities;
import dev.keel.activities.infer.InferenceActivityOptions;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.InferenceRequest;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The inference activity stubs an Inference run calls, each with its summary: once per run (plan,
 * commit, discard) or once per partition.
 */
final class InferenceStubs {
  /**
   * How long an inference worker may stay silent before its attempt counts as dead (the request's,
   * or 60 s).
   */
  private final Duration heartbeat;

  private final String what;

  InferenceStubs(InferenceRequest request) {
    heartbeat =
        request.getHeartbeatTimeoutSeconds() > 0
            ? Duration.ofSeconds(request.getHeartbeatTimeoutSeconds())
            : ConfigDefaults.HEARTBEAT_TIMEOUT;
    what =
        "the "
            + request.getSplit()
            + " split of "
            + request.getData().getUri()
            + " v"
            + request.getData().getVersion();
  }

  /** The scored split, as the summaries and the current details name it. */
  String what() {
    return what;
  }

  InferenceActivities planner() {
    return run("Plan the partitions of " + what);
  }

  InferenceActivities scorer(String checkpointUuid) {
    return Workflow.newActivityStub(
        InferenceActivities.class,
        InferenceActivityOptions.forPartition(
            "Score a partition of " + what + " with checkpoint " + checkpointUuid, heartbeat));
  }

  InferenceActivities committer(long rows) {
    return run("Commit " + rows + " predictions of " + what);
  }

  InferenceActivities discarder(String runId) {
    return run("Discard the staged predictions of run " + runId);
  }

  private InferenceActivities run(String summary) {
    return Workflow.newActivityStub(
        InferenceActivities.class, InferenceActivityOptions.forRun(summary, heartbeat));
  }
}
