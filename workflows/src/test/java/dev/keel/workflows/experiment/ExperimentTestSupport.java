package dev.keel.workflows.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.workflows.testing.KeelTestEnvironments;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;

/** A Temporal test environment with Keel's workflows and a formula trainer. */
final class ExperimentTestSupport {
  private ExperimentTestSupport() {}

  static TestWorkflowEnvironment environment(FormulaTrainingActivities trainer) {
    TestWorkflowEnvironment env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env);
    Worker train = env.newWorker(TaskQueues.train("cpu"));
    train.registerActivitiesImplementations(trainer);
    env.start();
    return env;
  }

  static ExperimentConfig config(String yaml) {
    return ExperimentConfigLoaders.experimentLoader().fromYaml(yaml);
  }
}
