package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.TaskQueues;
import dev.keel.search.ValidationProbe;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.workflows.KeelWorkflows;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/v1/experiments} validates the config once, the experiment workflow once more
 * when it starts (it must: {@code temporal workflow start} reaches it without Keel's client), and
 * nothing in between rebuilds a searcher to check it again.
 */
class RestSubmissionIsValidatedOnSubmitAndOnceAtWorkflowStartTest {
  private static final String NAME = "rest-validated-twice";
  private static LoopbackTemporalServer temporal;
  private static WorkflowServiceStubs stubs;
  private static WorkflowClient client;
  private static WorkerFactory workers;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    temporal = LoopbackTemporalServer.start(0);
    stubs = KeelWorkerHost.connect(temporal.address());
    client = KeelWorkerHost.client(stubs, "default");
    workers = WorkerFactory.newInstance(client);
    KeelWorkflows.register(workers.newWorker(TaskQueues.CONTROL));
    workers.start();
    api =
        ApiServer.start("127.0.0.1", 0, client, StorageRoot.of(TestDirs.create("api").toString()));
  }

  @AfterAll
  static void stop() {
    api.close();
    workers.shutdownNow();
    stubs.shutdown();
    temporal.close();
  }

  @Test
  void twoValidationsPerSubmission() throws Exception {
    String config =
        """
        name: %s
        data: {table: fashion_mnist}
        hyperparameters:
          lr: {type: log, minval: -4, maxval: -2, base: 10}
        searcher: {name: adaptive_asha, metric: validation_loss, max_trials: 16, max_length: {batches: 640}}
        """
            .formatted(NAME);
    try (ValidationProbe validations = ValidationProbe.countingConfigsNamed(NAME)) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/experiments"))
                      .header("Content-Type", "application/yaml")
                      .POST(HttpRequest.BodyPublishers.ofString(config))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(202, r.statusCode(), r.body());
      String id = new ObjectMapper().readTree(r.body()).get("experiment_id").asText();
      awaitFirstWorkflowTask(id);
      assertEquals(2, validations.count(), "once on submit, once at workflow start");
      client.newUntypedWorkflowStub(id).terminate("test done");
    }
  }

  /** The workflow's first task has run start(), which validates and builds the searcher. */
  private static void awaitFirstWorkflowTask(String id) throws InterruptedException {
    for (int i = 0; i < 300; i++) {
      boolean done =
          client.fetchHistory(id).getEvents().stream()
              .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
      if (done) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the experiment's first workflow task never completed");
  }
}
