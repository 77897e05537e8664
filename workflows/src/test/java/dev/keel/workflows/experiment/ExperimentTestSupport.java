package dev.keel.workflows.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.KeelWorkflows;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;

/** A Temporal test environment with Keel's workflows and a formula trainer. */
final class ExperimentTestSupport {
  private ExperimentTestSupport() {}

  static TestWorkflowEnvironment environment(FormulaTrainingActivities trainer) {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(KeelDataConverter.get()).build())
        .build());
    KeelSearchAttributes.ALL.forEach(a -> env.registerSearchAttribute(a.name(), a.type()));
    KeelWorkflows.register(env.newWorker(TaskQueues.CONTROL));
    Worker train = env.newWorker(TaskQueues.train("cpu"));
    train.registerActivitiesImplementations(trainer);
    env.start();
    return env;
  }

  static ExperimentConfig config(String yaml) {
    return ExperimentConfigLoaders.experimentLoader().fromYaml(yaml);
  }
}
