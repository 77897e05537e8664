package dev.keel.service.pool;

import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ProtoConfigLoader;
import dev.keel.api.v1.PoolProvisionerRequest;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.PoolStatus;
import dev.keel.service.visibility.WorkflowListing;
import dev.keel.workflows.pool.PoolProvisionerWorkflow;
import dev.keel.workflows.pool.PoolSpecs;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Starting, updating, stopping and reading the pool provisioners of a Temporal namespace (CLI and
 * REST API).
 */
public final class PoolProvisioners {
  private PoolProvisioners() {}

  /** Reads a pool spec from YAML or JSON and validates it: every problem with its field path. */
  public static ProtoConfigLoader<PoolSpec> loader() {
    return new ProtoConfigLoader<>(PoolSpecs.SPEC, PoolSpec::newBuilder, PoolSpecs::validate);
  }

  /** Whether {@link #start} started a provisioner or gave a running one the new spec. */
  public enum Started {
    STARTED,
    UPDATED
  }

  /**
   * Starts the pool's provisioner ({@code pool-<name>}), or sends a running one the spec; {@code
   * spec} is validated.
   */
  public static Started start(WorkflowClient client, PoolSpec spec) {
    PoolSpec valid = loader().validate(spec, PoolSpecs.SPEC);
    String id = PoolProvisionerWorkflow.workflowId(valid.getName());
    PoolProvisionerWorkflow workflow =
        client.newWorkflowStub(
            PoolProvisionerWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .setStaticSummary("pool " + valid.getName() + ": " + actuator(valid))
                .build());
    try {
      WorkflowClient.start(
          workflow::run, PoolProvisionerRequest.newBuilder().setSpec(valid).build());
      return Started.STARTED;
    } catch (WorkflowExecutionAlreadyStarted running) {
      client.newWorkflowStub(PoolProvisionerWorkflow.class, id).updateSpec(valid);
      return Started.UPDATED;
    }
  }

  /**
   * Asks the pool's provisioner to stop after its current look.
   *
   * @throws IllegalArgumentException when no provisioner of that pool runs
   */
  public static void stop(WorkflowClient client, String pool) {
    if (!running(client).contains(PoolProvisionerWorkflow.workflowId(pool))) {
      throw new IllegalArgumentException(unknown(client, pool));
    }
    client
        .newWorkflowStub(PoolProvisionerWorkflow.class, PoolProvisionerWorkflow.workflowId(pool))
        .stop();
  }

  /** The provisioner's status (also of a stopped one Temporal still keeps), or empty. */
  public static Optional<PoolStatus> status(WorkflowClient client, String pool) {
    try {
      return Optional.of(
          client
              .newWorkflowStub(
                  PoolProvisionerWorkflow.class, PoolProvisionerWorkflow.workflowId(pool))
              .status());
    } catch (WorkflowNotFoundException e) {
      return Optional.empty();
    }
  }

  /** The status of every running provisioner, by pool name. */
  public static List<PoolStatus> list(WorkflowClient client) {
    List<PoolStatus> out = new ArrayList<>();
    for (String id : running(client)) {
      try {
        out.add(client.newWorkflowStub(PoolProvisionerWorkflow.class, id).status());
      } catch (WorkflowNotFoundException e) {
        // stopped between the list and the query
      }
    }
    out.sort(Comparator.comparing(s -> s.getSpec().getName()));
    return out;
  }

  /** "no provisioner for pool gpu; running: cpu" */
  public static String unknown(WorkflowClient client, String pool) {
    List<String> running =
        running(client).stream().map(id -> id.replaceFirst("^pool-", "")).sorted().toList();
    return "no provisioner runs for pool "
        + pool
        + (running.isEmpty()
            ? " (none runs; keel pool start SPEC starts one)"
            : "; running: " + String.join(", ", running));
  }

  /** The workflow ids of the running provisioners. */
  private static List<String> running(WorkflowClient client) {
    return WorkflowListing.executions(client, PoolProvisionerWorkflow.TYPE, true).stream()
        .map(i -> i.getExecution().getWorkflowId())
        .distinct()
        .toList();
  }

  /** "aws_asg keel-gpu (eu-west-1)", "tofu apply in /srv/pool (group keel-gpu)". */
  static String actuator(PoolSpec submitted) {
    PoolSpec spec = PoolSpecs.withDefaults(submitted);
    var group = PoolSpecs.group(spec);
    String g =
        group.getAutoScalingGroupName()
            + (group.getRegion().isBlank() ? "" : " (" + group.getRegion() + ")")
            + (group.getEndpointOverride().isBlank() ? "" : " at " + group.getEndpointOverride());
    return spec.hasTofu()
        ? "tofu apply -var "
            + spec.getTofu().getVarName()
            + "=N in "
            + spec.getTofu().getWorkingDir()
            + ", group "
            + g
        : "aws_asg " + g;
  }
}
