package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.asha.AshaPlan;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.tables.testing.KernelRows;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real ASHA search on Fashion-MNIST with two brackets whose rungs share lengths (bracket 1 trains
 * to 15, 30 and 60 batches, bracket 2 to 30 and 60): its view shows each bracket's rungs apart,
 * from the searcher's own decisions while Temporal has the experiment and inferred from the catalog
 * once it does not (the same rungs); the catalog-only view has its progress, best trial, searcher
 * and unit; every view carries the config; and one trial is served with all its metrics,
 * checkpoints and log lines.
 */
class AshaViewShowsEachBracketsRungsLiveAndFromTheCatalogTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONFIG =
      """
      name: rungs
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}
        batch_size: 64
        width: 8
        optimizer: adam
      searcher: {name: adaptive_asha, metric: validation_accuracy, smaller_is_better: false, max_trials: 5,
                 max_length: {batches: 60}, max_rungs: 3, divisor: 2, max_concurrent_trials: 2}
      reproducibility: {seed: 3}
      model: {name: fashion_cnn}
      """;
  private static SearchStack stack;
  private static String id;
  private static JsonNode live;
  private static JsonNode fromCatalog;
  private static JsonNode trialFromCatalog;

  @BeforeAll
  static void runTheSearchThenReadItFromAServerWithoutIt() throws Exception {
    stack = SearchStack.start("rungs");
    id = stack.submit(CONFIG);
    stack
        .client()
        .newUntypedWorkflowStub(id)
        .getResult(8, TimeUnit.MINUTES, ExperimentResult.class);
    live = stack.getJson("/api/v1/experiments/" + id + "/view");
    // A Temporal server that never saw the experiment, as after a restart of keel dev or past its
    // retention.
    try (LoopbackTemporalServer other = LoopbackTemporalServer.start(0)) {
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(other.address());
      try (ApiServer api =
          ApiServer.start("127.0.0.1", 0, KeelWorkerHost.client(stubs, "default"), stack.root())) {
        fromCatalog = get(api, "/api/v1/experiments/" + id + "/view");
        trialFromCatalog = get(api, "/api/v1/experiments/" + id + "/trials/1");
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void rungsArePerBracketAsTheSearcherDecided() throws Exception {
    assertEquals("COMPLETED", live.get("experiment").get("state").asText());
    assertTrue(live.get("experiment").get("live").asBoolean());
    assertEquals("searcher", live.get("rungs_from").asText());
    Map<String, List<Long>> planned = new TreeMap<>();
    AshaPlan plan = AshaPlan.of(ExperimentConfigLoaders.load(CONFIG).config().getSearcher());
    for (int b = 0; b < plan.brackets().size(); b++) {
      AshaPlan.Bracket bracket = plan.brackets().get(b);
      planned.put(
          "bracket " + (b + 1) + " (" + bracket.numRungs() + " rungs)", bracket.rungLengths());
    }
    assertEquals(
        Map.of(
            "bracket 1 (3 rungs)",
            List.of(15L, 30L, 60L),
            "bracket 2 (2 rungs)",
            List.of(30L, 60L)),
        planned);
    Map<String, List<Long>> shown = new TreeMap<>();
    live.get("rungs")
        .forEach(
            r ->
                shown
                    .computeIfAbsent(r.path("bracket").asText(), b -> new ArrayList<>())
                    .add(r.get("length").asLong()));
    assertEquals(planned, shown, "each bracket's rungs, apart: " + live.get("rungs"));

    Map<Long, String> group = new TreeMap<>();
    live.get("trials").forEach(t -> group.put(t.get("trial_id").asLong(), t.get("group").asText()));
    Map<Long, TreeMap<Long, Double>> validated = validations();
    assertEquals(group.keySet(), validated.keySet(), "every trial validated");
    Map<Long, TreeSet<Long>> placed = new TreeMap<>();
    for (JsonNode rung : live.get("rungs")) {
      String bracket = rung.get("bracket").asText();
      long length = rung.get("length").asLong();
      boolean last = length == planned.get(bracket).get(planned.get(bracket).size() - 1);
      for (JsonNode t : rung.get("trials")) {
        long trial = t.get("trial_id").asLong();
        String where = "trial " + trial + " at " + length + " of " + bracket + ": " + t;
        assertEquals(group.get(trial), bracket, where + " is not in its own bracket");
        assertEquals(
            validated.get(trial).get(length), t.path("metric").asDouble(Double.NaN), 0.0, where);
        String outcome =
            last ? "completed" : validated.get(trial).lastKey() > length ? "promoted" : "stopped";
        assertEquals(outcome, t.get("outcome").asText(), where);
        placed.computeIfAbsent(trial, x -> new TreeSet<>()).add(length);
      }
    }
    Map<Long, TreeSet<Long>> expected = new TreeMap<>();
    validated.forEach((trial, byLength) -> expected.put(trial, new TreeSet<>(byLength.keySet())));
    assertEquals(expected, placed, "each trial at every rung it reached");
    assertTrue(
        live.get("rungs").findValues("outcome").stream()
            .anyMatch(o -> o.asText().equals("promoted")),
        live.get("rungs").toString());
  }

  @Test
  void theCatalogOnlyViewHasTheSameRungsProgressBestTrialSearcherAndUnit() {
    JsonNode e = fromCatalog.get("experiment");
    assertFalse(e.get("live").asBoolean());
    assertEquals("COMPLETED", e.get("state").asText());
    assertEquals(1.0, e.path("progress").asDouble(), "a completed experiment is all done: " + e);
    assertEquals("adaptive_asha", e.path("searcher").asText(), e.toString());
    assertFalse(e.path("smaller_is_better").asBoolean(true), e.toString());
    assertEquals("batches", e.path("unit").asText(), e.toString());
    JsonNode l = live.get("experiment");
    assertEquals(
        l.get("best_metric").asDouble(), e.path("best_metric").asDouble(), 0.0, e.toString());
    assertEquals(l.get("best_trial_id").asLong(), e.path("best_trial_id").asLong(-1), e.toString());
    assertEquals("validations", fromCatalog.get("rungs_from").asText());
    assertEquals(
        live.get("rungs"), fromCatalog.get("rungs"), "inferred from the catalog, the same rungs");
    List<String> trials = new ArrayList<>();
    live.get("trials")
        .forEach(
            t ->
                trials.add(
                    t.get("trial_id").asLong()
                        + " "
                        + t.get("group").asText()
                        + " best "
                        + t.get("best_metric").asDouble()
                        + " latest "
                        + t.get("latest_metric").asDouble()));
    List<String> fromRows = new ArrayList<>();
    fromCatalog
        .get("trials")
        .forEach(
            t ->
                fromRows.add(
                    t.get("trial_id").asLong()
                        + " "
                        + t.path("group").asText()
                        + " best "
                        + t.path("best_metric").asDouble()
                        + " latest "
                        + t.path("latest_metric").asDouble()));
    assertEquals(trials, fromRows, "each trial's bracket, best and latest metric");
  }

  @Test
  void viewsCarryTheConfigAndATrialIsServedWithAllItsMetricsCheckpointsAndLogs() throws Exception {
    for (JsonNode view : List.of(live, fromCatalog)) {
      assertEquals(
          "adaptive_asha",
          view.path("config").path("searcher").path("name").asText(),
          view.path("config").toString());
      assertEquals("fashion_cnn", view.path("config").path("model").path("name").asText());
    }
    JsonNode trial = stack.getJson("/api/v1/experiments/" + id + "/trials/1");
    assertEquals(trialFromCatalog.get("validations"), trial.get("validations"));
    assertEquals(id, trial.get("experiment").get("experiment_id").asText());
    assertEquals("batches", trial.get("experiment").get("unit").asText());
    assertEquals(1, trial.get("trial").get("trial_id").asLong());
    TreeSet<Long> lengths = new TreeSet<>();
    for (JsonNode v : trial.get("validations")) {
      lengths.add(v.get("length").asLong());
      for (String metric : List.of("validation_accuracy", "validation_loss", "train_loss")) {
        assertTrue(v.get("metrics").has(metric), metric + " in " + v);
      }
    }
    assertEquals(new TreeSet<>(validations().get(1L).keySet()), lengths);
    List<String> checkpoints = new ArrayList<>();
    live.get("checkpoints")
        .forEach(
            c -> {
              if (c.get("trial_id").asLong() == 1) {
                checkpoints.add(c.get("uuid").asText());
              }
            });
    List<String> served = new ArrayList<>();
    trial.get("checkpoints").forEach(c -> served.add(c.get("uuid").asText()));
    assertEquals(checkpoints, served);
    List<String> logs = new ArrayList<>();
    trial.get("logs").forEach(line -> logs.add(line.get("text").asText()));
    assertEquals(
        lengths.size(),
        logs.stream().filter(t -> t.startsWith("validated at ")).count(),
        logs.toString());
    assertTrue(logs.stream().anyMatch(t -> t.startsWith("COMPLETED")), logs.toString());

    HttpResponse<String> none = stack.get("/api/v1/experiments/" + id + "/trials/99");
    assertEquals(404, none.statusCode(), none.body());
    assertEquals(
        "experiment " + id + " has no trial 99",
        JSON.readTree(none.body()).get("message").asText());
  }

  /** Each trial's searcher metric by the length it was validated at, as the catalog recorded it. */
  private static Map<Long, TreeMap<Long, Double>> validations() throws Exception {
    Map<Long, TreeMap<Long, Double>> out = new TreeMap<>();
    for (Map<String, Object> m : KernelRows.read(stack.root().resolve("_keel/metrics"))) {
      if (id.equals(m.get("experiment_id")) && "validation_accuracy".equals(m.get("name"))) {
        out.computeIfAbsent((Long) m.get("trial_id"), t -> new TreeMap<>())
            .put((Long) m.get("length"), (Double) m.get("value"));
      }
    }
    return out;
  }

  private static JsonNode get(ApiServer api, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return JSON.readTree(r.body());
  }
}
