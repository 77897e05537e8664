package dev.keel.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.experiment.ExperimentView;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.audit.AuditTable;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A tokens file gives each user a role: viewers read, editors also submit, preview, pause and kill,
 * admins also promote and read the audit log. A table of role x endpoint -> status pins it on a
 * real server. Every write, a refused one too, is recorded with its user in {@code _keel/audit} and
 * shown with the experiment; tokens are added and revoked without a restart, and the file never
 * holds a token.
 */
class UsersMayDoWhatTheirRoleAllowsAndEveryWriteNamesThemTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String EXPERIMENT =
      """
      name: roles
      data: {table: t}
      hyperparameters: {batch_size: 8}
      searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
      resources: {resource_pool: nowhere}
      """;

  private static LoopbackTemporalServer temporal;
  private static KeelWorkerHost workers;
  private static WorkflowClient client;
  private static ApiServer api;
  private static StorageRoot storage;
  private static Path tokens;
  private static final Map<String, String> TOKEN = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    Path base = TestDirs.create("roles");
    storage = StorageRoot.of(base.resolve("storage").toString());
    tokens = base.resolve("tokens.yaml");
    for (String role : List.of("viewer", "editor", "admin")) {
      TOKEN.put(role, newToken(role + "-user", Role.parse(role)));
    }
    // a table to train on, and a control worker: experiments run, their trials wait for a pool no
    // worker serves
    Path csv = base.resolve("rows.csv");
    Files.writeString(csv, "label,x\n0,1.0\n1,2.0\n0,1.5\n1,2.5\n0,1.2\n1,2.2\n");
    new IngestActivitiesImpl(storage)
        .ingest(
            IngestRequest.newBuilder()
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(DataSource.Format.csv)
                        .setUri(csv.toString())
                        .setLabelColumn("label")
                        .setTestFraction(0))
                .setTableUri("t")
                .build());
    temporal = LoopbackTemporalServer.start(0);
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(temporal.address())
                .setStorageRoot(storage)
                .optRoles(Set.of(WorkerHostOptions.Role.CONTROL))
                .optDevServer(true)
                .build());
    client = workers.client();
    api =
        ApiServer.start(
            "127.0.0.1",
            0,
            client,
            DataRoots.of(storage),
            ApiToken.none().withUsers(TokensFile.open(tokens)));
  }

  @AfterAll
  static void stop() {
    api.close();
    workers.close();
    temporal.close();
  }

  /** Role x endpoint -> status, as data: {method, path, body, viewer, editor, admin, no token}. */
  @Test
  void eachRoleGetsWhatItMayDoAndIsRefusedTheRest() throws Exception {
    String started =
        JSON.readTree(send("editor", "POST", "/api/v1/experiments", EXPERIMENT).body())
            .path("experiment_id")
            .asText();
    List<Object[]> table =
        List.of(
            new Object[] {"GET", "/api/v1/experiments", null, 200, 200, 200, 401},
            new Object[] {
              "GET", "/api/v1/experiments/" + started + "/view", null, 200, 200, 200, 401
            },
            new Object[] {"GET", "/api/v1/models", null, 200, 200, 200, 401},
            new Object[] {"GET", "/metrics", null, 200, 200, 200, 401},
            new Object[] {"POST", "/api/v1/experiments/preview", EXPERIMENT, 403, 200, 200, 401},
            new Object[] {"POST", "/api/v1/experiments", EXPERIMENT, 403, 202, 202, 401},
            new Object[] {
              "POST", "/api/v1/experiments/" + started + "/pause", "", 403, 202, 202, 401
            },
            new Object[] {
              "POST",
              "/api/v1/models/nosuch/1/promote",
              "{\"stage\": \"champion\"}",
              403,
              403,
              404,
              401
            },
            new Object[] {"GET", "/api/v1/audit", null, 403, 403, 200, 401},
            new Object[] {"GET", "/health", null, 200, 200, 200, 200});
    for (Object[] row : table) {
      int column = 3;
      for (String who : new String[] {"viewer", "editor", "admin", null}) {
        HttpResponse<String> r = send(who, (String) row[0], (String) row[1], (String) row[2]);
        assertEquals(
            row[column], r.statusCode(), who + " " + row[0] + " " + row[1] + ": " + r.body());
        if (!row[1].equals(
            "/metrics")) { // metric names and HELP texts are the exposition format's own words
          assertFalse(
              r.body().matches("(?s).*(\\tat |Exception|dev\\.keel\\.).*"),
              "no Java in " + r.body());
        }
        column++;
      }
    }
    HttpResponse<String> refused = send("viewer", "POST", "/api/v1/experiments", EXPERIMENT);
    assertEquals(
        "viewer-user is a viewer: POST /api/v1/experiments needs the role editor",
        JSON.readTree(refused.body()).path("message").asText());
  }

  @Test
  void everyWriteIsRecordedWithItsUserAndShownWithTheExperiment() throws Exception {
    String id =
        JSON.readTree(send("editor", "POST", "/api/v1/experiments", EXPERIMENT).body())
            .path("experiment_id")
            .asText();
    assertEquals(
        403, send("viewer", "POST", "/api/v1/experiments/" + id + "/kill", "").statusCode());
    assertEquals(
        202, send("admin", "POST", "/api/v1/experiments/" + id + "/kill", "").statusCode());
    AuditTable audit = new AuditTable(storage);
    List<AuditTable.Entry> entries =
        Poll.until(
            "three entries about " + id,
            Duration.ofSeconds(30),
            () -> audit.read(Optional.of(id)),
            e -> e.size() == 3);
    assertEquals(
        List.of(
            "editor-user editor POST /api/v1/experiments 202",
            "viewer-user viewer POST /api/v1/experiments/" + id + "/kill 403",
            "admin-user admin POST /api/v1/experiments/" + id + "/kill 202"),
        entries.stream()
            .map(e -> e.who() + " " + e.role() + " " + e.action() + " " + e.status())
            .toList());
    JsonNode view = new ExperimentView(client, storage).read(id).orElseThrow().tree();
    assertEquals(
        "editor-user",
        view.path("experiment").path("submitted_by").asText(),
        "the experiment names who submitted it");
    JsonNode activity = view.path("activity");
    assertEquals("editor-user", activity.get(0).path("who").asText());
    JsonNode listed =
        JSON.readTree(send("admin", "GET", "/api/v1/audit?target=" + id, null).body());
    assertEquals(3, listed.path("total").asInt());
    assertEquals("admin-user", listed.path("entries").get(0).path("who").asText(), "newest first");
  }

  @Test
  void tokensAreAddedAndRevokedWithoutARestartAndABrokenFileRefusesEveryToken() throws Exception {
    String late = newToken("late-user", Role.VIEWER);
    assertEquals(
        200,
        sendWith(late, "GET", "/api/v1/experiments", null).statusCode(),
        "added while serving");
    assertTrue(TokensFile.revoke(tokens, "late-user"));
    assertEquals(
        401,
        sendWith(late, "GET", "/api/v1/experiments", null).statusCode(),
        "revoked while serving");

    String good = Files.readString(tokens);
    for (String token : TOKEN.values()) {
      assertFalse(good.contains(token), "the file holds hashes, never tokens");
    }
    Files.writeString(tokens, good.replace("role: admin", "role: superuser"));
    HttpResponse<String> broken = send("admin", "GET", "/api/v1/experiments", null);
    assertEquals(503, broken.statusCode(), broken.body());
    assertTrue(
        broken.body().contains("role 'superuser' is not one of viewer|editor|admin"),
        broken.body());
    assertEquals(
        503,
        send("viewer", "GET", "/api/v1/experiments", null).statusCode(),
        "not the last good list");
    Files.writeString(tokens, good);
    assertEquals(200, send("admin", "GET", "/api/v1/experiments", null).statusCode(), "mended");
  }

  private static String newToken(String name, Role role) throws Exception {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    TokensFile.put(tokens, new TokensFile.Entry(name, role, TokensFile.sha256Hex(token)));
    return token;
  }

  private static HttpResponse<String> send(String role, String method, String path, String body)
      throws Exception {
    return sendWith(role == null ? null : TOKEN.get(role), method, path, body);
  }

  private static HttpResponse<String> sendWith(
      String token, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.url() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (method.equals("GET")) {
      b.GET();
    } else {
      b.header(
              "Content-Type",
              body != null && body.startsWith("{") ? "application/json" : "application/yaml")
          .method(method, HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
