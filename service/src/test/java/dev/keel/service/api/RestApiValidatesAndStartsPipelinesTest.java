package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.security.DataRoots;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Micronaut API on a loopback port: health, a 400 naming each bad field (a warm start from a
 * model the registry lacks included), a 202 that really starts a workflow.
 */
class RestApiValidatesAndStartsPipelinesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static LoopbackTemporalServer temporal;
  private static WorkflowServiceStubs stubs;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    temporal = LoopbackTemporalServer.start(0);
    stubs = KeelWorkerHost.connect(temporal.address());
    WorkflowClient client = KeelWorkerHost.client(stubs, "default");
    // sources in the tests' temporary folders, the datasets' folder and /srv are inside the
    // server's data roots
    api =
        ApiServer.start(
            "127.0.0.1",
            0,
            client,
            DataRoots.of(
                StorageRoot.of(TestDirs.create("api").toString()),
                List.of(System.getProperty("java.io.tmpdir"), "/srv", "/usr/share/datasets")),
            ApiToken.none());
  }

  @AfterAll
  static void stop() {
    api.close();
    stubs.shutdown();
    temporal.close();
  }

  private static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthAnswersOnLoopback() throws Exception {
    assertTrue(api.url().startsWith("http://127.0.0.1:"), api.url());
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/health")));
    assertEquals(200, r.statusCode());
    assertEquals("ok", JSON.readTree(r.body()).get("status").asText());
  }

  @Test
  void badYamlGets400WithEveryFieldPath() throws Exception {
    String yaml =
        DemoRequest.text()
            .replace("format: fashion_mnist", "format: tfrecord")
            .replace("optimizer: adam", "optimizer: {type: logg}");
    HttpResponse<String> r =
        send(
            HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/pipelines"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(yaml)));
    assertEquals(400, r.statusCode(), r.body());
    JsonNode errors = JSON.readTree(r.body()).get("errors");
    assertEquals(2, errors.size(), r.body());
    assertEquals("source.format", errors.get(0).get("field").asText());
    assertEquals("experiment.hyperparameters.optimizer.type", errors.get(1).get("field").asText());
  }

  @Test
  void aWarmStartFromAModelTheRegistryLacksGets400NamingTheField() throws Exception {
    String yaml =
        DemoRequest.text() + "warm_start: {model: {name: no-such-model, stage: champion}}\n";
    HttpResponse<String> r =
        send(
            HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/pipelines"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(yaml)));
    assertEquals(400, r.statusCode(), r.body());
    JsonNode errors = JSON.readTree(r.body()).get("errors");
    assertEquals(1, errors.size(), r.body());
    assertEquals("warm_start.model", errors.get(0).get("field").asText());
    assertTrue(
        errors
            .get(0)
            .get("message")
            .asText()
            .startsWith("no model named 'no-such-model' in the registry"),
        r.body());
  }

  @Test
  void validYamlStartsAPipelineWorkflow() throws Exception {
    HttpResponse<String> r =
        send(
            HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/pipelines"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(DemoRequest.text())));
    assertEquals(202, r.statusCode(), r.body());
    String id = JSON.readTree(r.body()).get("pipeline_id").asText();
    assertTrue(id.startsWith("pipeline-fashion-mnist-demo-"), id);
    WorkflowExecutionStatus status =
        stubs
            .blockingStub()
            .describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder()
                    .setNamespace("default")
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                    .build())
            .getWorkflowExecutionInfo()
            .getStatus();
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, status);
  }
}
