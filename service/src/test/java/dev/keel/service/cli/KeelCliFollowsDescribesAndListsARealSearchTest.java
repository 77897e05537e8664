package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.api.SearchStack;
import dev.keel.service.dev.LoopbackTemporalServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The det-like commands against a real search (random, 2 trials x 40 batches of the CNN on
 * Fashion-MNIST): {@code experiment wait} follows it to the end with plain progress lines when not
 * on a terminal and exits 0; {@code experiment logs}, {@code trial describe|logs} and {@code
 * checkpoint list} show what the catalog recorded; a killed experiment makes {@code wait} exit 1;
 * unknown ids and bad options exit 2 with one line. After a restart (a Temporal that never ran it)
 * the catalog alone describes the experiment and its trials; {@code data describe} aligns its
 * columns.
 */
class KeelCliFollowsDescribesAndListsARealSearchTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONFIG =
      """
      name: cli-%s
      data: {table: fashion_mnist}
      hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 64, width: 8, optimizer: adam}
      searcher: {name: random, metric: validation_loss, smaller_is_better: true, max_trials: 2, max_length: {batches: %d}}
      min_validation_period: {batches: 20}
      reproducibility: {seed: 4}
      model: {name: fashion_cnn}
      """;
  private static SearchStack stack;
  private static String id;
  private static String[] waited;

  @BeforeAll
  static void runAndWait() throws Exception {
    stack = SearchStack.start("cli-follow");
    id = stack.submit(CONFIG.formatted("follow", 40));
    waited = keel("experiment", "wait", id);
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void waitFollowsWithPlainLinesAndExitsZeroOnCompletion() {
    assertEquals("0", waited[0], waited[2]);
    List<String> lines = Arrays.asList(waited[1].split("\n"));
    assertFalse(waited[1].contains("\r"), "no redrawn line when not on a terminal");
    assertTrue(lines.get(0).startsWith("ACTIVE"), waited[1]);
    // a line per change (which intermediate ones a 1 s poll sees depends on timing), ending with
    // the completion
    assertTrue(
        lines.contains(
            "COMPLETED 100%  trials 2/2 done, 0 active  80 batches  best validation_loss "
                + lines
                    .get(lines.size() - 2)
                    .substring(lines.get(lines.size() - 2).lastIndexOf(' ') + 1)),
        waited[1]);
    String last = lines.get(lines.size() - 1);
    assertTrue(last.startsWith("experiment " + id + " COMPLETED, best validation_loss 0."), last);
  }

  @Test
  void logsListValidationsCheckpointsAndStatesOldestFirst() {
    String[] all = keel("experiment", "logs", id);
    assertEquals("0", all[0], all[2]);
    String out = all[1];
    for (long trial = 1; trial <= 2; trial++) {
      for (long batches : List.of(20L, 40L)) {
        String prefix = "trial " + trial + "  validated at " + batches + " batches: ";
        assertTrue(
            out.lines().anyMatch(l -> l.contains(prefix) && l.contains(" validation_loss=")),
            prefix + " in\n" + out);
      }
      assertTrue(out.contains("trial " + trial + "  COMPLETED after 40 batches"), out);
    }
    assertTrue(out.contains("(20 batches) deleted by checkpoint GC"), out);
    List<String> times = new ArrayList<>();
    out.lines().forEach(l -> times.add(l.substring(0, 19)));
    assertEquals(times.stream().sorted().toList(), times, "oldest first");

    String[] one = keel("trial", "logs", id, "2");
    assertEquals("0", one[0], one[2]);
    assertTrue(one[1].lines().allMatch(l -> l.contains("  trial 2  ")), one[1]);
  }

  @Test
  void trialDescribeShowsEveryValidationWithItsCheckpoint() throws Exception {
    String[] table = keel("trial", "describe", id, "2");
    assertEquals("0", table[0], table[2]);
    assertTrue(
        table[1].startsWith("trial 2  COMPLETED  trained 40 batches of 40 batches"), table[1]);
    assertTrue(table[1].contains("hyperparameters: batch_size=64, lr=0.000"), table[1]);
    assertTrue(table[1].contains(", optimizer=adam, width=8\n"), table[1]);
    assertTrue(table[1].contains("BATCHES    LENGTH"), table[1]);
    assertTrue(
        table[1].lines().anyMatch(l -> l.trim().startsWith("20") && l.contains("DELETED")),
        table[1]);
    assertTrue(
        table[1].lines().anyMatch(l -> l.trim().startsWith("40") && l.contains("SAVED")), table[1]);

    JsonNode json = JSON.readTree(keel("trial", "describe", id, "2", "--json")[1]);
    assertEquals(2, json.get("validations").size());
    assertTrue(
        json.get("validations").get(1).get("metrics").has("validation_loss"), json.toString());

    String[] missing = keel("trial", "describe", id, "9");
    assertEquals("2", missing[0]);
    assertEquals("keel: experiment " + id + " has no trial 9 (it has 2)\n", missing[2]);
  }

  @Test
  void afterARestartTheCatalogDescribesItsTrialsWithLengthsAndWholeNumbers() throws Exception {
    // a Temporal that never ran it, as after restarting keel dev on the embedded server: the
    // catalog alone
    try (LoopbackTemporalServer restarted = LoopbackTemporalServer.start(0)) {
      KeelRun.Result described =
          KeelRun.keel(
              "experiment",
              "describe",
              id,
              "--temporal",
              restarted.address(),
              "--storage",
              stack.root().toString());
      assertEquals(0, described.code(), described.toString());
      assertTrue(described.out().startsWith(id + "  COMPLETED  "), described.out());
      for (long trial = 1; trial <= 2; trial++) {
        String row = "     " + trial + "  COMPLETED         40        40  ";
        assertTrue(
            described
                .out()
                .lines()
                .anyMatch(l -> l.startsWith(row) && l.contains("batch_size=64 ")),
            row + " in\n" + described.out());
      }

      KeelRun.Result trial =
          KeelRun.keel(
              "trial",
              "describe",
              id,
              "2",
              "--temporal",
              restarted.address(),
              "--storage",
              stack.root().toString());
      assertEquals(0, trial.code(), trial.toString());
      assertTrue(
          trial.out().startsWith("trial 2  COMPLETED  trained 40 batches of 40 batches"),
          trial.out());
      assertTrue(trial.out().contains("hyperparameters: batch_size=64, lr=0.000"), trial.out());
      assertTrue(trial.out().contains(", optimizer=adam, width=8\n"), trial.out());
    }
  }

  @Test
  void dataDescribeAlignsItsColumnsAroundALongFormatName() {
    String[] described = keel("data", "describe", "fashion_mnist");
    assertEquals("0", described[0], described[2]);
    List<String> lines = described[1].lines().toList();
    String header = lines.stream().filter(l -> l.startsWith("version ")).findFirst().orElseThrow();
    String row = lines.get(lines.indexOf(header) + 1);
    assertEquals(header.indexOf("format"), row.indexOf("fashion_mnist"), described[1]);
    assertEquals(
        header.indexOf("checksum"),
        row.indexOf("fashion_mnist") + "fashion_mnist".length() + 1,
        described[1]);
    assertEquals(
        header.indexOf("source"), row.indexOf("/usr/share/datasets/fashion-mnist"), described[1]);
  }

  @Test
  void checkpointListFiltersByStateAndTrial() throws Exception {
    JsonNode deleted =
        JSON.readTree(keel("checkpoint", "list", id, "--state", "deleted", "--json")[1]);
    assertEquals(2, deleted.get("checkpoints").size(), deleted.toString());
    deleted.get("checkpoints").forEach(c -> assertEquals("DELETED", c.get("state").asText()));
    String[] table = keel("checkpoint", "list", id, "--trial", "1");
    assertEquals("0", table[0], table[2]);
    assertTrue(table[1].startsWith("TRIAL  UUID"), table[1]);
    assertTrue(table[1].endsWith("2 checkpoints\n"), table[1]);
  }

  @Test
  void killedExperimentMakesWaitExitOne() throws Exception {
    String killed = stack.submit(CONFIG.formatted("killed", 4000));
    assertEquals(202, stack.post("/api/v1/experiments/" + killed + "/kill").statusCode());
    String[] r = keel("experiment", "wait", killed, "--quiet");
    assertEquals("1", r[0], r[1] + r[2]);
    assertTrue(r[1].startsWith("experiment " + killed + " KILLED"), r[1]);
  }

  @Test
  void unknownIdsAndBadOptionsExitTwoWithOneLine() {
    String[] wait = keel("experiment", "wait", "experiment-nope");
    assertEquals("2", wait[0]);
    assertEquals("keel: no experiment experiment-nope in Temporal or the catalog\n", wait[2]);
    String[] describe = keel("experiment", "describe", "experiment-nope");
    assertEquals("2", describe[0]);
    String[] status = keel("pipeline", "list", "--status", "sleeping");
    assertEquals("2", status[0]);
    assertTrue(status[2].startsWith("keel: status: 'sleeping' is not one of"), status[2]);
    String[] checkpoints = keel("checkpoint", "list", id, "--state", "kept");
    assertEquals("2", checkpoints[0]);
    assertEquals("keel: state: 'kept' is not one of [DELETED, SAVED]\n", checkpoints[2]);
    String[] none = keel("pipeline", "list");
    assertEquals("0", none[0], none[2]);
    assertTrue(none[1].startsWith("PIPELINE"), none[1]);
    assertTrue(none[1].endsWith("no pipelines in this namespace\n"), none[1]);
  }

  @Test
  void unknownAndEndedIdsAndAMissingScheduleApiSayWhatIsWrongInOneLine() {
    String[] status = keel("status", "nosuch-id");
    assertEquals("2", status[0], status[2]);
    assertEquals(
        "keel: no pipeline nosuch-id on Temporal "
            + stack.temporalAddress()
            + " (keel pipeline list shows those it knows)\n",
        status[2]);

    String[] unknown = keel("experiment", "kill", "experiment-nope");
    assertEquals("2", unknown[0], unknown[2]);
    assertEquals("keel: no experiment experiment-nope\n", unknown[2]);
    String[] ended = keel("experiment", "kill", id);
    assertEquals("2", ended[0], ended[2]);
    assertEquals(
        "keel: experiment " + id + " has ended (completed): it cannot be killed\n", ended[2]);
    String[] pause = keel("experiment", "pause", id);
    assertEquals(
        "keel: experiment " + id + " has ended (completed): it cannot be paused\n", pause[2]);

    // the embedded Java test server has no Schedules: as the REST API's 501 says
    String[] schedules = keel("schedule", "list");
    assertEquals("1", schedules[0], schedules[2]);
    assertEquals(
        "keel: this Temporal server has no Schedules (the embedded Java test server): use keel dev"
            + " --temporal cli or a cluster\n",
        schedules[2]);
  }

  /** {exit code, stdout, stderr} of {@code keel ARGS --temporal … --storage …}. */
  private static String[] keel(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of("--temporal", stack.temporalAddress(), "--storage", stack.root().toString()));
    KeelRun.Result r = KeelRun.keel(all.toArray(String[]::new));
    return new String[] {Integer.toString(r.code()), r.out(), r.err()};
  }
}
