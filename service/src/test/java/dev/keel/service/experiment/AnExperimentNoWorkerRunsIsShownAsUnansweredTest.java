package dev.keel.service.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import org.junit.jupiter.api.Test;

/**
 * An experiment submitted while no worker polls keel-control has a workflow that never answers its
 * queries: its view (describe, REST, the dashboard) must still come back, saying so, instead of an
 * error after a minute.
 */
class AnExperimentNoWorkerRunsIsShownAsUnansweredTest {

  @Test
  void theViewSaysItsWorkflowDoesNotAnswer() throws Exception {
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0)) {
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(temporal.address());
      try {
        WorkflowClient client = KeelWorkerHost.client(stubs, "default");
        String id = "unanswered-" + System.nanoTime();
        ExperimentWorkflow wf =
            client.newWorkflowStub(
                ExperimentWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build());
        WorkflowClient.start(
            wf::run,
            ExperimentRequest.newBuilder()
                .setConfig(
                    ExperimentConfigLoaders.experimentLoader()
                        .fromYaml(
                            """
                name: unanswered
                data: {table: t}
                hyperparameters: {batch_size: 8}
                searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
                """))
                .build());
        JsonNode view =
            new ExperimentView(client, StorageRoot.of(TestDirs.create("unanswered").toString()))
                .read(id)
                .orElseThrow()
                .tree();
        assertEquals(id, view.path("experiment").path("experiment_id").asText());
        assertTrue(
            view.path("experiment")
                .path("unanswered")
                .asText()
                .startsWith("its workflow does not answer (no worker" + " polls keel-control"),
            view.toString());
        assertEquals(0, view.path("trials").size());
      } finally {
        stubs.shutdown();
      }
    }
  }
}
