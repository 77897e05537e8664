package dev.keel.service.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.asha.AshaPlan;
import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.SearchStack;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.tables.testing.KernelRows;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A small real ASHA search on Fashion-MNIST, submitted through the REST API, watched in headless
 * Chromium from its first validation to its end on one page load of an API that requires its bearer
 * token: the page asks for the token, updates by itself (Server-Sent Events), shows the config,
 * pauses and activates the experiment with its buttons, and at the end its trials table, learning
 * curves (values on hover, colours apart), rungs per bracket and checkpoints show exactly what the
 * catalog and the searcher recorded. A trial's page shows all its metrics, loss and validation
 * curves, checkpoints, hyperparameters and log; an API whose Temporal never saw the experiment
 * shows it from the catalog with its progress, best trial, searcher and rung lengths with their
 * unit. Screenshots stay in {@code target/dashboard-screenshots/}.
 */
@Tag("browser")
class DashboardShowsARunningExperimentLiveTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONFIG =
      """
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

  private static final String TOKEN = "dashboard-test-token-0123456789";
  private static SearchStack stack;
  private static ApiServer withToken;
  private static LoopbackTemporalServer otherTemporal;
  private static WorkflowServiceStubs otherStubs;
  private static ApiServer catalogOnly;

  @BeforeAll
  static void start() throws Exception {
    stack = SearchStack.start("dashboard");
    withToken = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root(), ApiToken.of(TOKEN));
    // A Temporal server that never saw the experiment, as after a restart of keel dev or past its
    // retention.
    otherTemporal = LoopbackTemporalServer.start(0);
    otherStubs = KeelWorkerHost.connect(otherTemporal.address());
    catalogOnly =
        ApiServer.start("127.0.0.1", 0, KeelWorkerHost.client(otherStubs, "default"), stack.root());
  }

  @AfterAll
  static void stop() {
    if (catalogOnly != null) {
      catalogOnly.close();
    }
    if (otherStubs != null) {
      otherStubs.shutdownNow();
    }
    if (otherTemporal != null) {
      otherTemporal.close();
    }
    if (withToken != null) {
      withToken.close();
    }
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void pageFollowsTheSearchAndEndsShowingItsRealTrialsCurvesRungsAndCheckpoints() throws Exception {
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    Path home = Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
    Path modules = home.resolve(".tools/node/node_modules");
    assertTrue(
        Files.isExecutable(chromium),
        "no Chromium at " + chromium + " (apt-get install -y chromium; .ci/run does)");

    String id = stack.submit(CONFIG);

    Path shots = Files.createDirectories(Path.of("target/dashboard-screenshots"));
    Path log = shots.resolve("dashboard-check.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                "node",
                home.resolve("service/src/it/browser/dashboard-check.js").toString(),
                withToken.url(),
                id,
                shots.toAbsolutePath().toString(),
                TOKEN,
                catalogOnly.url())
            .redirectError(log.toFile());
    pb.environment().put("NODE_PATH", modules.toString());
    pb.environment().put("CHROMIUM", chromium.toString());
    Process browser = pb.start();
    String out = new String(browser.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(
        browser.waitFor(9, TimeUnit.MINUTES), "dashboard-check.js did not finish in 9 minutes");
    assertEquals(0, browser.exitValue(), out + "\n" + Files.readString(log));
    JsonNode seen = JSON.readTree(out.substring(out.lastIndexOf('\n') + 1));

    // One page load followed the run: the curves gained validations without a reload.
    assertEquals(1, seen.get("navigations").asInt(), seen.toString());
    assertTrue(
        seen.get("last").get("points").asInt() > seen.get("first").get("points").asInt(),
        "the curves did not update by themselves: " + seen);

    // What the page showed at the end is what the catalog recorded.
    Map<Long, Integer> validations = new TreeMap<>();
    Map<Long, TreeSet<Long>> lengths = new TreeMap<>();
    for (Map<String, Object> m : rows("metrics", id)) {
      if ("validation_accuracy".equals(m.get("name"))) {
        validations.merge((Long) m.get("trial_id"), 1, Integer::sum);
        lengths
            .computeIfAbsent((Long) m.get("trial_id"), t -> new TreeSet<>())
            .add((Long) m.get("length"));
      }
    }
    TreeSet<Long> trials = new TreeSet<>();
    rows("trials", id).forEach(t -> trials.add((Long) t.get("trial_id")));
    assertEquals(6, trials.size(), "trials in the catalog");
    assertEquals(new ArrayList<>(trials), longs(seen.get("tableTrials")), "trials table");
    Map<Long, Integer> curves = new TreeMap<>();
    seen.get("curves").forEach(c -> curves.put(c.get("trial").asLong(), c.get("points").asInt()));
    assertEquals(validations, curves, "validations per trial on the curves");

    // The rungs are per bracket (bracket 1 trains to 60 then 180 batches, bracket 2 straight to
    // 180), each trial
    // only in its own bracket's rungs: at each rung of its bracket it was validated at, promoted
    // exactly when it
    // trained past it, completed at the last. The validations every 45 batches in between
    // (min_validation_period) are on the curves only, also those of bracket 2 at 90 and 135.
    JsonNode view = stack.getJson("/api/v1/experiments/" + id + "/view");
    Map<Long, String> group = new TreeMap<>();
    view.get("trials").forEach(t -> group.put(t.get("trial_id").asLong(), t.get("group").asText()));
    Map<String, List<Long>> planned = new TreeMap<>();
    AshaPlan plan = AshaPlan.of(ExperimentConfigLoaders.load(CONFIG).config().getSearcher());
    for (int b = 0; b < plan.brackets().size(); b++) {
      planned.put(
          "bracket " + (b + 1) + " (" + plan.brackets().get(b).numRungs() + " rungs)",
          plan.brackets().get(b).rungLengths());
    }
    assertEquals(
        Map.of("bracket 1 (2 rungs)", List.of(60L, 180L), "bracket 2 (1 rungs)", List.of(180L)),
        planned);
    Map<String, List<Long>> shownRungs = new TreeMap<>();
    seen.get("rungs")
        .forEach(
            r ->
                shownRungs
                    .computeIfAbsent(r.get("bracket").asText(), b -> new ArrayList<>())
                    .add(r.get("length").asLong()));
    assertEquals(planned, shownRungs, seen.get("rungs").toString());
    TreeSet<Long> validated = new TreeSet<>();
    lengths.values().forEach(validated::addAll);
    assertTrue(
        validated.contains(45L) && validated.contains(90L),
        "intermediate validations at 45 and 90: " + validated);
    Map<Long, TreeSet<Long>> atRungs = new TreeMap<>();
    for (JsonNode rung : seen.get("rungs")) {
      String bracket = rung.get("bracket").asText();
      long length = rung.get("length").asLong();
      for (JsonNode t : rung.get("trials")) {
        long trial = t.get("trial").asLong();
        TreeSet<Long> reached = lengths.get(trial);
        assertEquals(
            group.get(trial),
            bracket,
            "trial " + t + " shown in another bracket's rung at " + length);
        assertTrue(
            reached.contains(length),
            "trial " + t + " shown at rung " + length + " but validated at " + reached);
        List<Long> own = planned.get(bracket);
        String outcome =
            length == own.get(own.size() - 1)
                ? "completed"
                : reached.last() > length ? "promoted" : "stopped";
        assertEquals(outcome, t.get("outcome").asText(), "trial " + t + " at " + length);
        atRungs.computeIfAbsent(trial, x -> new TreeSet<>()).add(length);
      }
    }
    Map<Long, TreeSet<Long>> expectedAtRungs = new TreeMap<>();
    lengths.forEach(
        (trial, reached) -> {
          TreeSet<Long> own = new TreeSet<>(planned.get(group.get(trial)));
          own.retainAll(reached);
          expectedAtRungs.put(trial, own);
        });
    assertEquals(expectedAtRungs, atRungs, "each trial at every rung of its bracket it reached");

    // Hovering the curves shows a real point's values; each trial's line has its own colour.
    String tooltip = seen.get("tooltip").asText();
    Matcher hovered = Pattern.compile("trial (\\d+): ([0-9.]+) at (\\d+) batches").matcher(tooltip);
    assertTrue(hovered.matches(), tooltip);
    assertTrue(
        points(id).contains(hovered.group(1) + " " + hovered.group(3) + " " + hovered.group(2)),
        tooltip + " is not a validation of " + points(id));
    List<String> colours = new ArrayList<>();
    seen.get("colours").forEach(c -> colours.add(c.asText()));
    assertEquals(colours.size(), new TreeSet<>(colours).size(), "one colour per trial: " + colours);
    // The buttons paused and activated the experiment, with the token; the ended experiment has
    // none left.
    assertTrue(seen.get("paused").asText().contains("PAUSED"), seen.toString());
    assertEquals(0, seen.get("controlsAtEnd").asInt());
    assertTrue(
        seen.get("config").asText().contains("name: adaptive_asha"), seen.get("config").asText());
    assertTrue(seen.get("config").asText().contains("batches: 180"), seen.get("config").asText());

    // A trial's page: every validation with every metric, both curves, its checkpoints,
    // hyperparameters and log.
    JsonNode trial = seen.get("trial");
    assertEquals(
        new ArrayList<>(batches(id, 1)), longs(trial.get("validations")), trial.toString());
    for (String metric :
        List.of("validation_accuracy", "validation_loss", "train_loss", "accuracy")) {
      assertTrue(
          trial.get("columns").toString().contains("\"" + metric + "\""),
          metric + " in " + trial.get("columns"));
    }
    assertEquals(List.of("train_loss", "validation_loss"), strings(trial.get("lossSeries")));
    assertEquals(
        List.of(
            "accuracy", "validation_macro_f1", "validation_roc_auc", "validation_top5_accuracy"),
        strings(trial.get("validationSeries")),
        "accuracy = validation_accuracy, one line; macro F1, ROC AUC and top-5 accuracy a line each");
    List<String> trialCheckpoints = new ArrayList<>();
    rows("checkpoints", id).stream()
        .filter(c -> c.get("trial_id").equals(1L))
        .map(c -> (String) c.get("uuid"))
        .distinct()
        .sorted()
        .forEach(trialCheckpoints::add);
    List<String> shownCheckpoints = new ArrayList<>(strings(trial.get("checkpoints")));
    shownCheckpoints.sort(null);
    assertEquals(trialCheckpoints, shownCheckpoints);
    assertTrue(
        trial.get("hparams").asText().contains("optimizer adam"), trial.get("hparams").asText());
    assertTrue(trial.get("summary").asText().contains("Restarts 0"), trial.get("summary").asText());
    assertEquals(
        validations.get(1L).longValue(),
        trial.get("logs").asText().lines().filter(l -> l.contains("validated at")).count(),
        trial.get("logs").asText());
    assertTrue(
        trial
            .get("tooltip")
            .asText()
            .matches("(train_loss|validation_loss): [0-9.]+ at \\d+ batches"),
        trial.toString());

    // From the catalog only: progress, best trial, searcher, rungs per bracket with their unit.
    JsonNode catalog = seen.get("catalog");
    String summary = catalog.get("summary").asText();
    JsonNode best = view.get("experiment");
    assertTrue(summary.contains("Searcher adaptive_asha"), summary);
    assertTrue(summary.contains("Progress 100%"), summary);
    assertTrue(
        summary.contains("(trial " + best.get("best_trial_id").asLong() + ")"),
        summary + " vs " + best);
    assertEquals(
        List.of("bracket 1 (2 rungs)", "bracket 2 (1 rungs)"), strings(catalog.get("brackets")));
    assertEquals(
        List.of("60 batches", "180 batches", "180 batches"), strings(catalog.get("rungLengths")));
    assertEquals(1, catalog.get("inferred").asInt());
    assertEquals(0, catalog.get("controls").asInt());

    Map<String, String> checkpoints = new TreeMap<>();
    rows("checkpoints", id)
        .forEach(
            c ->
                checkpoints.merge(
                    (String) c.get("uuid"),
                    (String) c.get("state"),
                    (a, b) -> "DELETED".equals(a) || "DELETED".equals(b) ? "DELETED" : a));
    Map<String, String> shown = new TreeMap<>();
    seen.get("checkpoints")
        .forEach(c -> shown.put(c.get("uuid").asText(), c.get("state").asText()));
    assertEquals(checkpoints, shown, "checkpoints and their GC state");
    assertTrue(shown.containsValue("DELETED") && shown.containsValue("SAVED"), shown.toString());

    String listRow = seen.get("listRow").asText();
    assertTrue(
        listRow.contains(id)
            && listRow.contains("COMPLETED")
            && listRow.contains("validation_accuracy 0."),
        listRow);
    for (String shot :
        List.of(
            "dashboard-1-running.png",
            "dashboard-1b-paused.png",
            "dashboard-2-completed.png",
            "dashboard-2b-trial.png",
            "dashboard-3-experiments.png",
            "dashboard-3b-from-the-catalog.png")) {
      assertTrue(Files.size(shots.resolve(shot)) > 20_000, shot);
    }
  }

  private static List<Map<String, Object>> rows(String table, String experimentId)
      throws Exception {
    return KernelRows.read(stack.root().resolve("_keel/" + table)).stream()
        .filter(r -> experimentId.equals(r.get("experiment_id")))
        .toList();
  }

  /**
   * {@code "<trial> <batches> <value>"} of every validation of the searcher's metric, values as the
   * page shows them.
   */
  private static Set<String> points(String experimentId) throws Exception {
    Set<String> out = new TreeSet<>();
    for (Map<String, Object> m : rows("metrics", experimentId)) {
      if ("validation_accuracy".equals(m.get("name"))) {
        out.add(
            m.get("trial_id")
                + " "
                + m.get("batches")
                + " "
                + new BigDecimal((Double) m.get("value"))
                    .setScale(4, RoundingMode.HALF_UP)
                    .stripTrailingZeros()
                    .toPlainString());
      }
    }
    return out;
  }

  private static TreeSet<Long> batches(String experimentId, long trial) throws Exception {
    TreeSet<Long> out = new TreeSet<>();
    for (Map<String, Object> m : rows("metrics", experimentId)) {
      if (m.get("trial_id").equals(trial)) {
        out.add((Long) m.get("batches"));
      }
    }
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static List<Long> longs(JsonNode array) {
    List<Long> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asLong()));
    return out;
  }
}
