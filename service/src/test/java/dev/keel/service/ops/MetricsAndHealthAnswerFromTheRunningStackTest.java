package dev.keel.service.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.service.api.ApiServer;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.workflows.inference.InferenceWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dev-like stack (loopback Temporal, a control and an inference worker, the API): {@code
 * /metrics} shows in Prometheus' text format a refused activity counted by Keel's failure type,
 * Temporal's client and worker metrics and the JVM's; {@code /health/readiness} says UP, and DOWN
 * naming the Temporal address when Temporal does not answer.
 */
class MetricsAndHealthAnswerFromTheRunningStackTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static LoopbackTemporalServer temporal;
  private static KeelWorkerHost workers;
  private static ApiServer api;
  private static StorageRoot root;

  @BeforeAll
  static void start() throws Exception {
    temporal = LoopbackTemporalServer.start(0);
    root = StorageRoot.of(TestDirs.create("ops").toString());
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(temporal.address())
                .setStorageRoot(root)
                .optDevServer(true)
                .optRoles(EnumSet.of(Role.CONTROL, Role.INFER))
                .build());
    api = ApiServer.start("127.0.0.1", 0, workers.client(), root);
  }

  @AfterAll
  static void stop() {
    api.close();
    workers.close();
    temporal.close();
  }

  @Test
  void metricsCountARefusedActivityByItsTypeBesideTemporalsAndTheJvms() throws Exception {
    Path nowhere = TestDirs.create("ops-no-checkpoint").resolve("gone");
    InferenceRequest request =
        InferenceRequest.newBuilder()
            .setCheckpoint(
                CheckpointRef.newBuilder().setUuid("gone").setUri(nowhere.toUri().toString()))
            .setData(TableRef.newBuilder().setUri(root.table("fashion_mnist")).setVersion(0))
            .setPredictionsTableUri("ops_predictions")
            .build();
    assertThrows(
        WorkflowFailedException.class,
        () ->
            workers
                .client()
                .newWorkflowStub(
                    InferenceWorkflow.class,
                    WorkflowOptions.newBuilder()
                        .setTaskQueue(TaskQueues.CONTROL)
                        .setWorkflowId("ops-refused")
                        .build())
                .run(request));

    String failure =
        "keel_activity_failures_total{activity=\"PlanInference\",task_queue=\""
            + TaskQueues.INFER
            + "\",type=\""
            + FailureTypes.CORRUPT_CHECKPOINT
            + "\"} 1.0";
    // Temporal's SDK reports into the registry once a second
    HttpResponse<String> scrape = get("/metrics");
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!scrape.body().contains("temporal_workflow_failed_total")
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
      scrape = get("/metrics");
    }
    assertEquals(200, scrape.statusCode());
    assertTrue(
        scrape
            .headers()
            .firstValue("Content-Type")
            .orElse("")
            .startsWith("text/plain; version=0.0.4"),
        scrape.headers().toString());
    String body = scrape.body();
    assertTrue(body.contains(failure), "expected " + failure + " in\n" + grep(body, "keel_"));
    assertTrue(
        body.contains(
            "keel_activities_running{activity=\"PlanInference\",task_queue=\""
                + TaskQueues.INFER
                + "\"} 0.0"),
        grep(body, "keel_activities_running"));
    assertTrue(body.contains("temporal_workflow_failed_total{"), grep(body, "temporal_"));
    assertTrue(body.contains("temporal_request_total{"), grep(body, "temporal_"));
    assertTrue(body.contains("jvm_memory_used_bytes{"), "JVM metrics");
  }

  @Test
  void readinessIsUpWithTemporalAndStorageAndNamesTemporalWhenItIsDown() throws Exception {
    HttpResponse<String> live = get("/health");
    assertEquals(200, live.statusCode(), live.body());
    HttpResponse<String> ready = get("/health/readiness");
    assertEquals(200, ready.statusCode(), ready.body());
    assertEquals(
        "UP", JSON.readTree(ready.body()).get("checks").get("temporal").asText(), ready.body());

    int dead;
    try (ServerSocket s = new ServerSocket(0)) {
      dead = s.getLocalPort();
    }
    WorkflowServiceStubs nowhere = KeelWorkerHost.connect("127.0.0.1:" + dead);
    try (ApiServer down =
        ApiServer.start("127.0.0.1", 0, KeelWorkerHost.client(nowhere, "default"), root)) {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(down.url() + "/health/readiness")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(503, r.statusCode(), r.body());
      JsonNode body = JSON.readTree(r.body());
      assertEquals("DOWN", body.get("status").asText(), r.body());
      assertTrue(
          body.get("checks").get("temporal").asText().contains("127.0.0.1:" + dead), r.body());
      assertEquals("UP", body.get("checks").get("storage").asText(), r.body());
      HttpResponse<String> stillLive =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(down.url() + "/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, stillLive.statusCode(), "liveness does not depend on Temporal");
    } finally {
      nowhere.shutdownNow();
    }
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String grep(String body, String prefix) {
    StringBuilder out = new StringBuilder();
    for (String line : body.split("\n")) {
      if (line.startsWith(prefix)) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }
}
