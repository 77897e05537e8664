package dev.keel.workflows.pool;

import dev.keel.api.v1.PoolProvisionerRequest;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.PoolStatus;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Keeps one pool of worker machines sized to its queue, for as long as it runs: looks at the demand
 * (Keel's live gangs on {@code keel-train-<pool>}) and at the group, decides ({@link PoolScaling}),
 * asks the provider only when something changes, and sleeps {@code poll_interval}. Launch errors
 * and refused requests are recorded and back off. Started as type {@code PoolProvisioner}, id
 * {@code pool-<name>}, on {@code keel-control}; continues as new every {@code
 * continue_as_new_after_iterations} looks.
 */
@WorkflowInterface
public interface PoolProvisionerWorkflow {
  String TYPE = "PoolProvisioner";

  /** One provisioner per pool: {@code pool-gpu}. */
  static String workflowId(String pool) {
    return "pool-" + pool;
  }

  /** Runs until {@link #stop()}; returns the last status. */
  @WorkflowMethod(name = TYPE)
  PoolStatus run(PoolProvisionerRequest request);

  /**
   * Spec, instances (desired, running, starting, busy, idle), demand, the last decision and the
   * last error.
   */
  @QueryMethod(name = "status")
  PoolStatus status();

  /**
   * A new spec for the same pool, used from the next look; an invalid one is refused (see the
   * status' notes).
   */
  @SignalMethod(name = "updateSpec")
  void updateSpec(PoolSpec spec);

  /** Stops provisioning after the current look; the group keeps what it has. */
  @SignalMethod(name = "stop")
  void stop();
}
