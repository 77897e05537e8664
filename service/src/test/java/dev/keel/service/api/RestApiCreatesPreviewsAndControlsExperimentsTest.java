package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RestApiCreatesPreviewsAndControlsExperimentsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String CONFIG =
      """
      name: rest-asha
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -4, maxval: -2, base: 10}
      searcher: {name: adaptive_asha, metric: validation_loss, smaller_is_better: true, max_trials: 16,
                 max_length: {batches: 640}, max_rungs: 3, divisor: 4}
      """;
  private static LoopbackTemporalServer temporal;
  private static WorkflowServiceStubs stubs;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    temporal = LoopbackTemporalServer.start(0);
    stubs = KeelWorkerHost.connect(temporal.address());
    api =
        ApiServer.start(
            "127.0.0.1",
            0,
            KeelWorkerHost.client(stubs, "default"),
            StorageRoot.of(TestDirs.create("api").toString()));
  }

  @AfterAll
  static void stop() {
    api.close();
    stubs.shutdown();
    temporal.close();
  }

  private static HttpResponse<String> post(String path, String yaml) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(api.url() + path))
            .header("Content-Type", "application/yaml")
            .POST(HttpRequest.BodyPublishers.ofString(yaml))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void signalsToAnUnknownExperimentAre404AndToAnEndedOne409() throws Exception {
    HttpResponse<String> unknown = post("/api/v1/experiments/no-such-experiment/pause", "");
    assertEquals(404, unknown.statusCode(), unknown.body());
    assertEquals(
        "no experiment no-such-experiment", JSON.readTree(unknown.body()).get("message").asText());
    HttpResponse<String> described =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/experiments/no-such-experiment"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(404, described.statusCode(), described.body());
    assertEquals(
        "no experiment no-such-experiment",
        JSON.readTree(described.body()).get("message").asText());

    String id =
        JSON.readTree(post("/api/v1/experiments", CONFIG).body()).get("experiment_id").asText();
    KeelWorkerHost.client(stubs, "default")
        .newUntypedWorkflowStub(id)
        .terminate("ended by the test");
    HttpResponse<String> ended = post("/api/v1/experiments/" + id + "/activate", "");
    assertEquals(409, ended.statusCode(), ended.body());
    assertEquals(
        "experiment " + id + " has ended (terminated): it cannot be activated",
        JSON.readTree(ended.body()).get("message").asText());
    assertEquals(409, post("/api/v1/experiments/" + id + "/trials/1/kill", "").statusCode());
  }

  @Test
  void previewShowsTheRungsWithoutStartingAnything() throws Exception {
    HttpResponse<String> r = post("/api/v1/experiments/preview", CONFIG);
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(r.body().contains("640"), r.body());
  }

  @Test
  void searcherProblemsAreRejectedWith400BeforeAnyWorkflowStarts() throws Exception {
    HttpResponse<String> r =
        post(
            "/api/v1/experiments",
            CONFIG.replace("divisor: 4", "divisor: 1").replace("max_trials: 16", "max_trials: 0"));
    assertEquals(400, r.statusCode(), r.body());
    JsonNode errors = JSON.readTree(r.body()).get("errors");
    assertEquals("searcher.max_trials", errors.get(0).get("field").asText(), r.body());
    assertEquals("searcher.divisor", errors.get(1).get("field").asText(), r.body());
  }

  @Test
  void createdExperimentRunsAndAcceptsControlSignals() throws Exception {
    HttpResponse<String> r = post("/api/v1/experiments", CONFIG);
    assertEquals(202, r.statusCode(), r.body());
    String id = JSON.readTree(r.body()).get("experiment_id").asText();
    assertTrue(id.startsWith("experiment-rest-asha-"), id);
    assertEquals(202, post("/api/v1/experiments/" + id + "/pause", "").statusCode());
    var info =
        stubs
            .blockingStub()
            .describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder()
                    .setNamespace("default")
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                    .build())
            .getWorkflowExecutionInfo();
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, info.getStatus());
    assertEquals("Experiment", info.getType().getName());
  }
}
