package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.cli.KeelCli;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.security.DataRoots;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source that does not exist, or a CSV without the label column, is refused by keel validate,
 * keel submit and REST (400) with the path as the user wrote it, and no workflow starts.
 */
class SubmissionRefusesAMissingSourceNamingItsPathTest {
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

  static String request(String source) {
    return DemoRequest.text()
        .replaceFirst("(?s)source:.*?\\n(\\S)", source.replace("$", "\\$") + "\n$1");
  }

  static String[] cli(String... args) {
    StringWriter err = new StringWriter();
    int code = KeelCli.run(new PrintWriter(err, true), args);
    return new String[] {Integer.toString(code), err.toString()};
  }

  static long openWorkflows() {
    return stubs
        .blockingStub()
        .listOpenWorkflowExecutions(
            ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace("default").build())
        .getExecutionsCount();
  }

  @Test
  void validateAndSubmitNameTheMissingPath(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("p.yaml");
    Files.writeString(file, request("source: {format: image_folder, uri: data/no-such-folder}"));
    String[] v = cli("validate", "--pipeline", file.toString());
    assertEquals("2", v[0], v[1]);
    assertTrue(v[1].contains("source.uri: data/no-such-folder does not exist"), v[1]);
    assertFalse(v[1].contains("\tat "), "no stack trace: " + v[1]);
    // submit refuses before it connects: the address below has no server
    String[] s = cli("submit", "--temporal", "127.0.0.1:1", file.toString());
    assertEquals("2", s[0], s[1]);
    assertTrue(s[1].contains("source.uri: data/no-such-folder does not exist"), s[1]);
  }

  @Test
  void restAnswers400NamingThePathAndStartsNothing() throws Exception {
    long before = openWorkflows();
    String yaml = request("source: {format: csv, uri: /srv/none/rows.csv, label_column: y}");
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/pipelines"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(yaml))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    JsonNode e = JSON.readTree(r.body()).get("errors").get(0);
    assertEquals("source.uri", e.get("field").asText());
    assertEquals("/srv/none/rows.csv does not exist", e.get("message").asText());
    assertEquals(before, openWorkflows(), "no workflow was started");
  }

  @Test
  void restAnswers400NamingAWrongLabelColumn(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("rows.csv");
    Files.writeString(csv, "a,b,label\n1,2,x\n");
    String yaml = request("source: {format: csv, uri: " + csv + ", label_column: class}");
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/pipelines"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(yaml))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    JsonNode e = JSON.readTree(r.body()).get("errors").get(0);
    assertEquals("source.label_column", e.get("field").asText());
    assertEquals(
        "'class' is not a column of " + csv + " (its header row has 3 columns)",
        e.get("message").asText());
  }
}
