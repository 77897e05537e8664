package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogRow;
import dev.keel.service.cli.KeelRun;
import dev.keel.tables.catalog.CatalogActivitiesImpl;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /api/v1/experiments} and {@code keel experiment list} read the experiments from the
 * catalog the real catalog writer filled: the latest state of each, newest first, filtered by state
 * and name, in pages that say how many matched; bad paging is a 400 naming the parameter.
 */
class ExperimentListPagesTheCatalogNewestFirstTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T0 = 1_790_000_000_000L;
  private static LoopbackStack stack;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("experiment-list");
    record("exp-a", 1, experiment("exp-a", "mnist-asha", "ACTIVE", T0));
    record("exp-b", 1, experiment("exp-b", "mnist-grid", "PAUSED", T0 + 5_000));
    record("exp-a", 2, experiment("exp-a", "mnist-asha", "COMPLETED", T0 + 10_000));
    record("exp-c", 1, experiment("exp-c", "other", "ACTIVE", T0 + 20_000));
    api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root());
  }

  private static CatalogRow experiment(String id, String name, String state, long time) {
    return CatalogRow.newBuilder()
        .setKind("experiments")
        .setExperimentId(id)
        .setName(name)
        .setState(state)
        .setUri(stack.root().table("fashion_mnist"))
        .setLength(0)
        .setJson("{\"name\":\"" + name + "\"}")
        .setTimeMillis(time)
        .build();
  }

  private static void record(String id, long sequence, CatalogRow row) {
    new CatalogActivitiesImpl(stack.root())
        .append(
            CatalogAppend.newBuilder()
                .setExperimentId(id)
                .setSequence(sequence)
                .addRows(row)
                .build());
  }

  @AfterAll
  static void stop() {
    api.close();
    stack.close();
  }

  @Test
  void newestFirstWithTheLatestStateOfEach() throws Exception {
    JsonNode all = get("");
    assertEquals(List.of("exp-c", "exp-a", "exp-b"), ids(all));
    assertEquals(3, all.get("total").asInt());
    assertEquals("COMPLETED", all.get("experiments").get(1).get("state").asText());
    assertEquals("mnist-asha", all.get("experiments").get(1).get("name").asText());
  }

  @Test
  void filtersByStateAndByPartOfTheName() throws Exception {
    assertEquals(List.of("exp-a"), ids(get("?state=completed")));
    assertEquals(List.of("exp-a", "exp-b"), ids(get("?name=MNIST")));
    assertEquals(List.of(), ids(get("?state=KILLED")));
  }

  @Test
  void pagesSayHowManyMatched() throws Exception {
    JsonNode first = get("?limit=2");
    assertEquals(List.of("exp-c", "exp-a"), ids(first));
    assertEquals(3, first.get("total").asInt());
    assertEquals(List.of("exp-b"), ids(get("?limit=2&offset=2")));

    HttpResponse<String> bad =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/experiments?limit=0"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(400, bad.statusCode(), bad.body());
    assertEquals(
        "limit: must be between 1 and 1000, got 0",
        JSON.readTree(bad.body()).get("message").asText());
  }

  @Test
  void theCliPrintsTheSamePageAsATableOrAsJson() throws Exception {
    String table = cli("experiment", "list", "--storage", stack.root().toString(), "--limit", "2");
    List<String> lines = table.lines().toList();
    assertTrue(lines.get(0).startsWith("EXPERIMENT  NAME        STATE      UPDATED (UTC)"), table);
    assertTrue(lines.get(1).startsWith("exp-c       other       ACTIVE     2026-09-21 "), table);
    assertTrue(lines.get(2).startsWith("exp-a       mnist-asha  COMPLETED  2026-09-21 "), table);
    assertEquals("1-2 of 3 (next: --offset 2)", lines.get(3), table);

    JsonNode json =
        JSON.readTree(
            cli(
                "experiment",
                "list",
                "--storage",
                stack.root().toString(),
                "--json",
                "--state",
                "PAUSED"));
    assertEquals(List.of("exp-b"), ids(json));
    assertEquals(get("?state=PAUSED"), json, "the CLI's JSON is the API's");
  }

  private static JsonNode get(String query) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/experiments" + query))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  private static List<String> ids(JsonNode page) {
    List<String> out = new ArrayList<>();
    page.get("experiments").forEach(e -> out.add(e.get("experiment_id").asText()));
    return out;
  }

  private static String cli(String... args) {
    KeelRun.Result r = KeelRun.keel(args);
    assertEquals(0, r.code(), r.err());
    return r.out();
  }
}
