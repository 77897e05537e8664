package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real random search (2 trials x 40 batches, validated every 20) followed through the API: its
 * Server-Sent Events carry a changing view from the first reading to the completed experiment and
 * then end; the trials and checkpoints lists page and filter that view; unknown ids are 404 and bad
 * paging 400 naming the parameter; and once Temporal no longer has the experiment, its view is
 * rebuilt from the catalog with the same trials and curves.
 */
class ExperimentEventsFollowARealSearchToItsEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONFIG =
      """
      name: events
      data: {table: fashion_mnist}
      hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 64, width: 8, optimizer: adam}
      searcher: {name: random, metric: validation_loss, smaller_is_better: true, max_trials: 2, max_length: {batches: 40}}
      min_validation_period: {batches: 20}
      reproducibility: {seed: 8}
      model: {name: fashion_cnn}
      """;
  private static SearchStack stack;
  private static String id;
  private static List<String[]> events;

  @BeforeAll
  static void runSearchWhileFollowingIt() throws Exception {
    stack = SearchStack.start("events");
    id = stack.submit(CONFIG);
    HttpResponse<Stream<String>> stream =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(stack.url() + "/api/v1/experiments/" + id + "/events"))
                    .build(),
                HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, stream.statusCode());
    assertTrue(
        stream.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"),
        stream.headers().toString());
    events = CompletableFuture.supplyAsync(() -> parse(stream.body())).get(4, TimeUnit.MINUTES);
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void eventsCarryEachChangeOfTheViewAndEndWithTheCompletedExperiment() throws Exception {
    assertTrue(
        events.size() >= 3,
        "expected the first reading, changes and the end, got " + events.size());
    for (int i = 0; i < events.size(); i++) {
      assertEquals("experiment", events.get(i)[0], events.get(i)[1]);
      if (i > 0) {
        assertNotEquals(
            events.get(i - 1)[1], events.get(i)[1], "event " + i + " repeats the one before");
      }
    }
    JsonNode last = JSON.readTree(events.get(events.size() - 1)[1]);
    assertEquals("COMPLETED", last.get("experiment").get("state").asText());
    assertEquals(
        JSON.readTree(stack.get("/api/v1/experiments/" + id + "/view").body()),
        last,
        "the last event is the view of the completed experiment");
    JsonNode first = JSON.readTree(events.get(0)[1]);
    assertTrue(
        points(first) < points(last),
        "validations arrived while following: " + points(first) + " -> " + points(last));

    assertEquals("validation_loss", last.get("curves").get("metric").asText());
    assertEquals(2, last.get("curves").get("series").size());
    for (JsonNode series : last.get("curves").get("series")) {
      List<Long> batches = new ArrayList<>();
      series.get("points").forEach(p -> batches.add(p.get(0).asLong()));
      assertEquals(List.of(20L, 40L), batches, "trial " + series.get("trial_id"));
    }
    assertEquals(1, last.get("rungs").size(), "a random search trains every trial to one length");
    assertEquals(40, last.get("rungs").get(0).get("length").asLong());
  }

  @Test
  void trialsAndCheckpointsPageAndFilterTheView() throws Exception {
    JsonNode firstPage = stack.getJson("/api/v1/experiments/" + id + "/trials?limit=1");
    assertEquals(2, firstPage.get("total").asInt());
    assertEquals(1, firstPage.get("trials").size());
    assertEquals(1, firstPage.get("trials").get(0).get("trial_id").asLong());
    JsonNode second = stack.getJson("/api/v1/experiments/" + id + "/trials?offset=1&limit=1");
    assertEquals(2, second.get("trials").get(0).get("trial_id").asLong());
    assertEquals(
        2,
        stack
            .getJson("/api/v1/experiments/" + id + "/trials?state=completed")
            .get("total")
            .asInt());
    assertEquals(
        0,
        stack.getJson("/api/v1/experiments/" + id + "/trials?state=ERRORED").get("total").asInt());

    int all =
        stack.getJson("/api/v1/experiments/" + id + "/checkpoints?limit=1000").get("total").asInt();
    JsonNode saved =
        stack.getJson("/api/v1/experiments/" + id + "/checkpoints?state=saved&limit=1000");
    JsonNode deleted =
        stack.getJson("/api/v1/experiments/" + id + "/checkpoints?state=DELETED&limit=1000");
    assertEquals(4, all, "two validations per trial, each with its checkpoint");
    assertEquals(all, saved.get("total").asInt() + deleted.get("total").asInt());
    assertTrue(deleted.get("total").asInt() > 0, "checkpoint GC deleted some: " + deleted);
    saved.get("checkpoints").forEach(c -> assertEquals("SAVED", c.get("state").asText()));
  }

  @Test
  void unknownIdsAre404AndBadPaging400NamingTheParameter() throws Exception {
    for (String path : List.of("/view", "/events", "/trials", "/checkpoints")) {
      HttpResponse<String> r = stack.get("/api/v1/experiments/experiment-nope" + path);
      assertEquals(404, r.statusCode(), path + ": " + r.body());
      assertTrue(r.body().contains("no experiment experiment-nope"), r.body());
    }
    HttpResponse<String> bad = stack.get("/api/v1/experiments/" + id + "/trials?limit=0");
    assertEquals(400, bad.statusCode(), bad.body());
    assertTrue(JSON.readTree(bad.body()).get("message").asText().startsWith("limit:"), bad.body());
  }

  @Test
  void experimentGoneFromTemporalIsViewedFromTheCatalog() throws Exception {
    JsonNode live = stack.getJson("/api/v1/experiments/" + id + "/view");
    try (LoopbackTemporalServer other = LoopbackTemporalServer.start(0)) {
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(other.address());
      try (ApiServer api =
          ApiServer.start("127.0.0.1", 0, KeelWorkerHost.client(stubs, "default"), stack.root())) {
        HttpResponse<String> r =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(
                            URI.create(api.url() + "/api/v1/experiments/" + id + "/view"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode fromCatalog = JSON.readTree(r.body());
        assertFalse(fromCatalog.get("experiment").get("live").asBoolean());
        assertEquals("COMPLETED", fromCatalog.get("experiment").get("state").asText());
        assertEquals(live.get("curves"), fromCatalog.get("curves"));
        assertEquals(live.get("rungs"), fromCatalog.get("rungs"));
        assertEquals(live.get("checkpoints"), fromCatalog.get("checkpoints"));
        List<String> trials = new ArrayList<>();
        fromCatalog
            .get("trials")
            .forEach(t -> trials.add(t.get("trial_id") + " " + t.get("state").asText()));
        assertEquals(List.of("1 COMPLETED", "2 COMPLETED"), trials);
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  private static int points(JsonNode view) {
    int n = 0;
    for (JsonNode s : view.get("curves").get("series")) {
      n += s.get("points").size();
    }
    return n;
  }

  /** {event name, data} of each event of a Server-Sent Events stream, until it ends. */
  private static List<String[]> parse(Stream<String> lines) {
    List<String[]> out = new ArrayList<>();
    String name = "message";
    StringBuilder data = new StringBuilder();
    for (String line : (Iterable<String>) lines::iterator) {
      if (line.isEmpty()) {
        if (data.length() > 0) {
          out.add(new String[] {name, data.toString()});
        }
        name = "message";
        data.setLength(0);
      } else if (line.startsWith("event:")) {
        name = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data.append(data.length() > 0 ? "\n" : "").append(line.substring(5).stripLeading());
      }
    }
    return out;
  }
}
