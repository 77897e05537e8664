package dev.keel.service.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.Searchers;
import dev.keel.service.api.SearchStack;
import dev.keel.tables.testing.KernelRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A small real ASHA search on Fashion-MNIST, submitted through the REST API, watched in headless Chromium
 * from its first validation to its end on one page load: the page updates by itself (Server-Sent Events),
 * and at the end its trials table, learning curves, rungs and checkpoints show exactly what the catalog
 * recorded of that experiment. Screenshots stay in {@code target/dashboard-screenshots/}.
 */
@Tag("browser")
class DashboardShowsARunningExperimentLiveTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONFIG = """
      name: dashboard-asha
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}
        batch_size: 64
        width: 8
        optimizer: adam
      searcher: {name: adaptive_asha, metric: validation_accuracy, smaller_is_better: false, max_trials: 6,
                 max_length: {batches: 180}, max_rungs: 3, divisor: 3, max_concurrent_trials: 2}
      min_validation_period: {batches: 45}
      reproducibility: {seed: 3}
      model: {name: fashion_cnn}
      """;

  private static SearchStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SearchStack.start("dashboard");
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void pageFollowsTheSearchAndEndsShowingItsRealTrialsCurvesRungsAndCheckpoints() throws Exception {
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    Path home = Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
    Path modules = home.resolve(".tools/node/node_modules");
    assertTrue(Files.isExecutable(chromium), "no Chromium at " + chromium + " (apt-get install -y chromium; .ci/run does)");

    String id = stack.submit(CONFIG);

    Path shots = Files.createDirectories(Path.of("target/dashboard-screenshots"));
    Path log = shots.resolve("dashboard-check.log");
    ProcessBuilder pb = new ProcessBuilder("node", home.resolve("service/src/it/browser/dashboard-check.js").toString(),
        stack.url(), id, shots.toAbsolutePath().toString()).redirectError(log.toFile());
    pb.environment().put("NODE_PATH", modules.toString());
    pb.environment().put("CHROMIUM", chromium.toString());
    Process browser = pb.start();
    String out = new String(browser.getInputStream().readAllBytes()).trim();
    assertTrue(browser.waitFor(9, TimeUnit.MINUTES), "dashboard-check.js did not finish in 9 minutes");
    assertEquals(0, browser.exitValue(), out + "\n" + Files.readString(log));
    JsonNode seen = JSON.readTree(out.substring(out.lastIndexOf('\n') + 1));

    // One page load followed the run: the curves gained validations without a reload.
    assertEquals(1, seen.get("navigations").asInt(), seen.toString());
    assertTrue(seen.get("last").get("points").asInt() > seen.get("first").get("points").asInt(),
        "the curves did not update by themselves: " + seen);

    // What the page showed at the end is what the catalog recorded.
    Map<Long, Integer> validations = new TreeMap<>();
    Map<Long, TreeSet<Long>> lengths = new TreeMap<>();
    for (Map<String, Object> m : rows("metrics", id)) {
      if ("validation_accuracy".equals(m.get("name"))) {
        validations.merge((Long) m.get("trial_id"), 1, Integer::sum);
        lengths.computeIfAbsent((Long) m.get("trial_id"), t -> new TreeSet<>()).add((Long) m.get("length"));
      }
    }
    TreeSet<Long> trials = new TreeSet<>();
    rows("trials", id).forEach(t -> trials.add((Long) t.get("trial_id")));
    assertEquals(6, trials.size(), "trials in the catalog");
    assertEquals(new ArrayList<>(trials), longs(seen.get("tableTrials")), "trials table");
    Map<Long, Integer> curves = new TreeMap<>();
    seen.get("curves").forEach(c -> curves.put(c.get("trial").asLong(), c.get("points").asInt()));
    assertEquals(validations, curves, "validations per trial on the curves");

    // The rungs are the lengths of the searcher's plan that trials were validated at; the validations
    // every 45 batches in between (min_validation_period) are on the curves only. A trial is promoted
    // at a rung exactly when it trained past it.
    TreeSet<Long> planned = new TreeSet<>();
    Searchers.preview(ExperimentConfigLoaders.load(CONFIG).config()).rows().forEach(r -> planned.add(r.length()));
    TreeSet<Long> validated = new TreeSet<>();
    lengths.values().forEach(validated::addAll);
    TreeSet<Long> expectedRungs = new TreeSet<>(planned);
    expectedRungs.retainAll(validated);
    assertTrue(validated.contains(45L) && !planned.contains(45L), "an intermediate validation at 45: " + validated);
    assertEquals(new ArrayList<>(expectedRungs), longs(seen.get("rungs"), "length"), seen.get("rungs").toString());
    TreeSet<Long> atSomeRung = new TreeSet<>();
    for (JsonNode rung : seen.get("rungs")) {
      long length = rung.get("length").asLong();
      for (JsonNode t : rung.get("trials")) {
        TreeSet<Long> reached = lengths.get(t.get("trial").asLong());
        assertTrue(reached.contains(length), "trial " + t + " shown at rung " + length + " but validated at " + reached);
        assertEquals(reached.last() > length ? "promoted" : "stopped", t.get("outcome").asText(), "trial " + t + " at " + length);
        atSomeRung.add(t.get("trial").asLong());
      }
    }
    assertEquals(trials, atSomeRung, "every trial is on a rung");

    Map<String, String> checkpoints = new TreeMap<>();
    rows("checkpoints", id).forEach(c -> checkpoints.merge((String) c.get("uuid"), (String) c.get("state"),
        (a, b) -> "DELETED".equals(a) || "DELETED".equals(b) ? "DELETED" : a));
    Map<String, String> shown = new TreeMap<>();
    seen.get("checkpoints").forEach(c -> shown.put(c.get("uuid").asText(), c.get("state").asText()));
    assertEquals(checkpoints, shown, "checkpoints and their GC state");
    assertTrue(shown.containsValue("DELETED") && shown.containsValue("SAVED"), shown.toString());

    String listRow = seen.get("listRow").asText();
    assertTrue(listRow.contains(id) && listRow.contains("COMPLETED") && listRow.contains("validation_accuracy 0."), listRow);
    for (String shot : List.of("dashboard-1-running.png", "dashboard-2-completed.png", "dashboard-3-experiments.png")) {
      assertTrue(Files.size(shots.resolve(shot)) > 20_000, shot);
    }
  }

  private static List<Map<String, Object>> rows(String table, String experimentId) throws Exception {
    return KernelRows.read(stack.root().resolve("_keel/" + table)).stream()
        .filter(r -> experimentId.equals(r.get("experiment_id"))).toList();
  }

  private static List<Long> longs(JsonNode array) {
    List<Long> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asLong()));
    return out;
  }

  private static List<Long> longs(JsonNode array, String field) {
    List<Long> out = new ArrayList<>();
    array.forEach(n -> out.add(n.get(field).asLong()));
    return out;
  }
}
