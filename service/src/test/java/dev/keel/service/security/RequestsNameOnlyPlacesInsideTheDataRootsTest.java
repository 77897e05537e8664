package dev.keel.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Value;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.ModelSpec;
import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server reads and writes only inside its storage root and the data roots its operator declared:
 * a source, table or checkpoint directory elsewhere (by path, '..', a symbolic link, a file:
 * spelling or another bucket) is refused before anything reads it, naming the field and the roots
 * in the same words whether it exists or not; no answer carries a file's content; nothing is
 * started or written for a refused request.
 */
class RequestsNameOnlyPlacesInsideTheDataRootsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String SECRET = "root:$6$saltsalt$notarealhashbutsecret:20228:0:99999:7:::";

  private static LoopbackTemporalServer temporal;
  private static WorkflowServiceStubs stubs;
  private static WorkflowClient client;
  private static ApiServer api;
  private static Path storage;
  private static Path data;
  private static Path outside;

  @BeforeAll
  static void start() throws Exception {
    Path base = TestDirs.create("roots");
    storage = Files.createDirectories(base.resolve("storage"));
    data = Files.createDirectories(base.resolve("data"));
    outside = Files.createDirectories(base.resolve("etc"));
    Files.writeString(outside.resolve("shadow"), SECRET + "\n");
    Files.createSymbolicLink(data.resolve("escape"), outside);
    Files.writeString(data.resolve("shadow.csv"), SECRET + "\n" + SECRET + "\n");
    temporal = LoopbackTemporalServer.start(0);
    stubs = KeelWorkerHost.connect(temporal.address());
    client = KeelWorkerHost.client(stubs, "default");
    api =
        ApiServer.start(
            "127.0.0.1",
            0,
            client,
            DataRoots.of(
                StorageRoot.of(storage.toString()),
                List.of(data.toString(), "s3://team-data/keel")),
            ApiToken.none());
  }

  @AfterAll
  static void stop() {
    api.close();
    stubs.shutdown();
    temporal.close();
  }

  @Test
  void sourcesOutsideTheRootsAreRefusedAlikeWhetherTheyExistOrNot() throws Exception {
    String roots = storage + ", " + data + ", s3://team-data/keel";
    for (String uri :
        List.of(
            outside.resolve("shadow").toString(),
            outside.resolve("no-such-file").toString(),
            data + "/../etc/shadow",
            data.resolve("escape/shadow").toString(),
            "file://" + outside.resolve("shadow"),
            "file:" + outside.resolve("shadow"),
            "file://" + data + "/%2e%2e/etc/shadow",
            "s3://other-bucket/keel/x.csv",
            "s3://team-data/keel/../private/x.csv",
            "s3://team-data/keelish/x.csv",
            "http://169.254.169.254/latest")) {
      JsonNode error =
          refused(
              pipeline("source: {format: csv, uri: '" + uri + "', label_column: label}"),
              "source.uri");
      String message = error.path("message").asText();
      assertTrue(
          message.contains("'" + uri + "'")
              && (message.contains("is outside this server's data roots (" + roots + ")")
                  || message.contains("does not read")
                  || message.contains("is not a path or URI this server can use")),
          uri + ": " + message);
    }
    assertNothingStarted();
  }

  @Test
  void tablesAndCheckpointDirectoriesOutsideTheRootsAreRefused() throws Exception {
    refused(
        pipeline(
                "source: {format: csv, uri: "
                    + data.resolve("shadow.csv")
                    + ", label_column: label}")
            .replace("target_table: t", "target_table: " + outside),
        "target_table");
    refused(
        pipeline(
                "source: {format: csv, uri: "
                    + data.resolve("shadow.csv")
                    + ", label_column: label}")
            .replace("target_table: t", "target_table: .."),
        "target_table");
    refused(experiment("data: {table: '../../../../../etc'}"), "data.table");
    refused(
        experiment(
            "data: {table: t}\ncheckpoint_storage: {storage_path: '" + outside.toUri() + "'}"),
        "checkpoint_storage.storage_path");
    for (String table : List.of(outside.toString(), "../_keel/models", "/etc", data + "/../etc")) {
      HttpResponse<String> r =
          get("/api/v1/data/describe?table=" + URLEncoder.encode(table, StandardCharsets.UTF_8));
      assertEquals(400, r.statusCode(), table + ": " + r.body());
      assertTrue(r.body().contains("table: "), r.body());
    }
    assertFalse(Files.exists(outside.resolve("_delta_log")), "nothing written outside the roots");
    assertNothingStarted();
  }

  @Test
  void aFileInsideTheRootsIsNeverQuotedBack() throws Exception {
    JsonNode error =
        refused(
            pipeline(
                "source: {format: csv, uri: "
                    + data.resolve("shadow.csv")
                    + ", label_column: label}"),
            "source.label_column");
    assertEquals(
        "'label' is not a column of "
            + data.resolve("shadow.csv")
            + " (its first line is not a CSV header row"
            + " with a label column and a feature column)",
        error.path("message").asText());
    assertNothingStarted();
  }

  @Test
  void namesThatWouldBecomePathsAreRefusedAtSubmission() throws Exception {
    String request =
        pipeline(
                "source: {format: csv, uri: "
                    + data.resolve("shadow.csv")
                    + ", label_column: label}")
            .replace("name: roots", "name: ../../evil-name");
    refused(request, "name");
    assertNothingStarted();
  }

  @Test
  void aTorchScriptModelFileOutsideTheRootsIsRefusedInAnExperimentAndAPipeline() throws Exception {
    String roots = storage + ", " + data + ", s3://team-data/keel";
    JsonNode error =
        refused(
            experiment(
                "data: {table: t}\nmodel: {torchscript: '" + outside.resolve("shadow") + "'}"),
            "model.torchscript");
    assertEquals(
        "'"
            + outside.resolve("shadow")
            + "' is outside this server's data roots ("
            + roots
            + "); an operator can add one with keel serve --data-root",
        error.path("message").asText());
    error =
        refused(
            pipeline(
                    "source: {format: csv, uri: "
                        + data.resolve("shadow.csv")
                        + ", label_column: label}")
                .replace(
                    "model: {name: tabular_mlp}",
                    "model: {torchscript: '" + data + "/{w}/m.pt', params: {w: escape}}"),
            "experiment.model.torchscript");
    assertEquals(
        "'"
            + data
            + "/{w}/m.pt' with w=escape names '"
            + data
            + "/escape/m.pt' is outside this server's data roots ("
            + roots
            + "); an operator can add one with keel serve --data-root",
        error.path("message").asText());
    assertNothingStarted();
  }

  @Test
  void aTorchScriptTemplateIsCheckedByItsDirectoryAndByEachFileItsListedValuesName() {
    DataRoots roots =
        DataRoots.of(
            StorageRoot.of(storage.toString()), List.of(data.toString(), "s3://team-data/keel"));
    String describe = roots.describe();
    assertEquals(
        List.of(),
        roots.problems(model(data + "/models/cnn-w{width}.pt", "64", "128"), "experiment."));
    assertEquals(List.of(), roots.problems(model("s3://team-data/keel/m/{width}.pt", "64"), ""));
    assertEquals(
        List.of(
            new ConfigProblem(
                "experiment.model.torchscript",
                "the directory of '"
                    + outside
                    + "/cnn-w{width}.pt': '"
                    + outside
                    + "/' is outside this server's data roots ("
                    + describe
                    + "); an operator can add one with keel serve --data-root")),
        roots.problems(model(outside + "/cnn-w{width}.pt", "64"), "experiment."));
    assertEquals(
        List.of(
            new ConfigProblem(
                "model.torchscript",
                "the directory of 's3://team-data/{width}/m.pt': 's3://team-data/' is outside"
                    + " this server's data roots ("
                    + describe
                    + "); an operator can add one with keel serve --data-root")),
        roots.problems(model("s3://team-data/{width}/m.pt", "keel"), ""));
    // the directory is inside, but one listed value names a symbolic link out of it
    assertEquals(
        List.of(
            new ConfigProblem(
                "model.torchscript",
                "'"
                    + data
                    + "/{dir}/m.pt' with dir=escape names '"
                    + data
                    + "/escape/m.pt' is outside this server's data roots ("
                    + describe
                    + "); an operator can add one with keel serve --data-root")),
        roots.problems(model(data + "/{dir}/m.pt", "models", "escape"), ""));
    assertEquals(
        List.of(), roots.problems(model(data + "/models/m.pt"), ""), "no placeholder: the file");
  }

  /** An experiment whose torchscript template takes its {width} or {dir} from these values. */
  private static ExperimentConfig model(String torchscript, String... values) {
    Hyperparameter.Builder hp = Hyperparameter.newBuilder().setType("categorical");
    for (String v : values) {
      hp.addVals(Value.newBuilder().setStringValue(v));
    }
    ExperimentConfig.Builder c =
        ExperimentConfig.newBuilder().setModel(ModelSpec.newBuilder().setTorchscript(torchscript));
    if (values.length > 0) {
      c.putHyperparameters(torchscript.contains("{dir}") ? "dir" : "width", hp.build());
    }
    return c.build();
  }

  @Test
  void placesInsideTheRootsAreAccepted() {
    DataRoots roots =
        DataRoots.of(
            StorageRoot.of(storage.toString()), List.of(data.toString(), "s3://team-data/keel"));
    for (String inside :
        List.of(
            data.resolve("new-dir/rows.csv").toString(),
            data.toUri().toString() + "rows.csv",
            storage.resolve("tables/t").toString(),
            "s3://team-data/keel",
            "s3://team-data/keel/sub/x.csv")) {
      assertEquals(Optional.empty(), roots.location("source.uri", inside), inside);
    }
    assertEquals(Optional.empty(), roots.table("target_table", "fashion_mnist"));
  }

  private static JsonNode refused(String body, String field) throws Exception {
    boolean experiment = body.startsWith("#experiment");
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create(
                        api.url() + (experiment ? "/api/v1/experiments" : "/api/v1/pipelines")))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    assertFalse(
        r.body().contains("saltsalt") || r.body().contains("root:"),
        "no file content in " + r.body());
    assertFalse(
        r.body().matches("(?s).*(at |Exception|dev\\.keel\\.).*"), "no Java in " + r.body());
    for (JsonNode e : JSON.readTree(r.body()).path("errors")) {
      if (e.path("field").asText().equals(field)
          || e.path("field").asText().endsWith("." + field)) {
        return e;
      }
    }
    throw new AssertionError("no problem at " + field + " in " + r.body());
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void assertNothingStarted() {
    assertEquals(
        0,
        stubs
            .blockingStub()
            .listOpenWorkflowExecutions(
                ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace("default").build())
            .getExecutionsCount(),
        "a refused request starts no workflow");
    assertFalse(Files.exists(storage.resolve("tables")), "a refused request writes no table");
  }

  private static String pipeline(String source) {
    return """
        name: roots
        %s
        target_table: t
        experiment:
          hyperparameters: {batch_size: 8}
          searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
          model: {name: tabular_mlp}
        """
        .formatted(source);
  }

  private static String experiment(String lines) {
    return """
        #experiment
        name: roots
        %s
        hyperparameters: {batch_size: 8}
        searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
        """
        .formatted(lines);
  }
}
