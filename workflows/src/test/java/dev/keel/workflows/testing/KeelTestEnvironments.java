package dev.keel.workflows.testing;

import dev.keel.activities.TaskQueues;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.KeelWorkflows;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;

/**
 * Temporal's in-memory test server as Keel's workers see a cluster: Keel's data converter and
 * search attributes.
 */
public final class KeelTestEnvironments {
  private KeelTestEnvironments() {}

  /** With time skipping, as Temporal's test server defaults to. */
  public static TestWorkflowEnvironment create() {
    return create(true);
  }

  public static TestWorkflowEnvironment create(boolean timeSkipping) {
    TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(
                    WorkflowClientOptions.newBuilder()
                        .setDataConverter(KeelDataConverter.get())
                        .build())
                .setUseTimeskipping(timeSkipping)
                .build());
    KeelSearchAttributes.ALL.forEach(a -> env.registerSearchAttribute(a.name(), a.type()));
    return env;
  }

  /**
   * A {@code keel-control} worker with Keel's workflows registered; activities may be added before
   * {@code start()}.
   */
  public static Worker control(TestWorkflowEnvironment env) {
    Worker control = env.newWorker(TaskQueues.CONTROL);
    KeelWorkflows.register(control);
    return control;
  }
}
