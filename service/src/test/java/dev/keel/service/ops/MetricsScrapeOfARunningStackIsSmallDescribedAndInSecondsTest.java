package dev.keel.service.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.service.api.SearchStack;
import dev.keel.service.testing.Poll;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} of a running stack (loopback Temporal, a control and a training worker, the API)
 * after a real search of 2 trials: one scrape stays under 200 KB, every family has a {@code HELP}
 * text, times are in seconds, no label is {@code none} in every series of its family, and {@code
 * keel_activity_failures_total} is there at zero for every activity served before any of them
 * failed. Before Keel bounded Temporal's meters the same scrape was about 0.9 MB (69 buckets and 10
 * labels per timer series).
 */
class MetricsScrapeOfARunningStackIsSmallDescribedAndInSecondsTest {
  private static final int MAX_BYTES = 200_000;
  private static final String CONFIG =
      """
      name: scrape
      data: {table: fashion_mnist}
      hyperparameters: {lr: {type: log, minval: -3.3, maxval: -2.3, base: 10}, batch_size: 64, width: 8, optimizer: adam}
      searcher: {name: random, metric: validation_loss, smaller_is_better: true, max_trials: 2, max_length: {batches: 20}}
      min_validation_period: {batches: 10}
      reproducibility: {seed: 3}
      model: {name: fashion_cnn}
      """;

  /** A time unit other than seconds at the end of a family's name (before Prometheus' suffixes). */
  private static final Pattern NON_SECOND_UNIT =
      Pattern.compile(
          "_(ns|nanoseconds|us|microseconds|ms|milliseconds|minutes|hours|days)(_total|_count|_sum|_bucket|_max)?$");

  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static SearchStack stack;
  private static String beforeAnySearch;
  private static String afterTheSearch;

  @BeforeAll
  static void runASearch() throws Exception {
    stack = SearchStack.start("ops-scrape");
    beforeAnySearch = scrape();
    String id = stack.submit(CONFIG);
    Poll.until(
        "the search to complete", Duration.ofMinutes(4), () -> state(id), "COMPLETED"::equals);
    // Temporal's SDK reports into the registry once a second
    afterTheSearch =
        Poll.until(
            "Temporal's meters of the Train activity",
            Duration.ofSeconds(30),
            MetricsScrapeOfARunningStackIsSmallDescribedAndInSecondsTest::scrape,
            s ->
                s.contains(
                    "temporal_activity_execution_latency_seconds_count{activity_type=\"Train\""));
    System.out.println(
        "scrape after a 2-trial search: "
            + afterTheSearch.getBytes(StandardCharsets.UTF_8).length
            + " bytes, "
            + families(afterTheSearch).size()
            + " families, "
            + series(afterTheSearch).size()
            + " series");
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void failuresAreCountedAtZeroForEveryServedActivityBeforeAnyFailed() {
    String train = TaskQueues.train("cpu");
    for (String scrape : List.of(beforeAnySearch, afterTheSearch)) {
      assertTrue(
          scrape.contains("# HELP keel_activity_failures_total "), grep(scrape, "keel_activity"));
      assertTrue(
          scrape.contains(
              "keel_activity_failures_total{activity=\"Train\",task_queue=\""
                  + train
                  + "\",type=\"\"} 0.0"),
          grep(scrape, "keel_activity"));
      assertTrue(
          scrape.contains(
              "keel_activity_failures_total{activity=\"AppendCatalog\",task_queue=\""
                  + TaskQueues.CONTROL
                  + "\",type=\"\"} 0.0"),
          grep(scrape, "keel_activity"));
      assertTrue(
          scrape.contains(
              "keel_activities_running{activity=\"Train\",task_queue=\"" + train + "\"} 0.0"),
          grep(scrape, "keel_activities_running"));
    }
  }

  @Test
  void aScrapeAfterARealSearchIsUnder200Kb() {
    int bytes = afterTheSearch.getBytes(StandardCharsets.UTF_8).length;
    assertTrue(bytes < MAX_BYTES, bytes + " bytes, largest families:\n" + largest(afterTheSearch));
    // the search really reported: the queue wait of its Train activities has a few buckets
    List<String> trainBuckets =
        afterTheSearch
            .lines()
            .filter(
                l ->
                    l.startsWith(
                        "temporal_activity_schedule_to_start_latency_seconds_bucket{activity_type=\"Train\""))
            .filter(l -> l.contains("task_queue=\"" + TaskQueues.train("cpu") + "\""))
            .toList();
    assertTrue(
        !trainBuckets.isEmpty() && trainBuckets.size() <= 10, String.join("\n", trainBuckets));
  }

  @Test
  void everyFamilyHasAHelpText() {
    Map<String, String> help = new TreeMap<>();
    afterTheSearch
        .lines()
        .filter(l -> l.startsWith("# HELP "))
        .forEach(
            l -> {
              String[] parts = l.split(" ", 4);
              help.put(parts[2], parts.length < 4 ? "" : parts[3].trim());
            });
    List<String> bare = new ArrayList<>();
    for (String family : families(afterTheSearch)) {
      if (help.getOrDefault(family, "").isEmpty()) {
        bare.add(family);
      }
    }
    assertEquals(List.of(), bare, "families without a HELP text");
    assertTrue(help.get("temporal_request_latency_seconds").contains("latency"), help.toString());
  }

  @Test
  void timesAreInSeconds() {
    List<String> other =
        families(afterTheSearch).stream().filter(f -> NON_SECOND_UNIT.matcher(f).find()).toList();
    assertEquals(List.of(), other, "families with a time unit other than seconds");
    assertTrue(
        afterTheSearch.contains("# TYPE process_cpu_seconds_total counter"),
        grep(afterTheSearch, "process_"));
    assertFalse(
        afterTheSearch.contains("process_cpu_time_ns_total"), grep(afterTheSearch, "process_"));
  }

  @Test
  void noLabelIsNoneInEverySeriesOfItsFamily() {
    // family -> label -> the values it takes
    Map<String, Map<String, TreeSet<String>>> values = new TreeMap<>();
    for (String line : series(afterTheSearch)) {
      int brace = line.indexOf('{');
      if (brace < 0) {
        continue;
      }
      String family = line.substring(0, brace).replaceFirst("_(bucket|count|sum)$", "");
      Map<String, TreeSet<String>> labels = values.computeIfAbsent(family, f -> new TreeMap<>());
      Matcher m = LABEL.matcher(line.substring(brace, line.lastIndexOf('}')));
      while (m.find()) {
        labels.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
      }
    }
    List<String> none = new ArrayList<>();
    values.forEach(
        (family, labels) ->
            labels.forEach(
                (label, vs) -> {
                  if (vs.equals(new TreeSet<>(List.of("none")))) {
                    none.add(family + "{" + label + "}");
                  }
                }));
    assertEquals(List.of(), none, "labels that are 'none' in every series of their family");
    assertTrue(values.containsKey("temporal_request_total"), "Temporal's meters were scraped");
  }

  private static String state(String id) {
    try {
      return stack
          .getJson("/api/v1/experiments/" + id + "/view")
          .get("experiment")
          .get("state")
          .asText();
    } catch (Exception e) {
      throw new AssertionError("GET the experiment's view", e);
    }
  }

  private static String scrape() {
    try {
      HttpResponse<String> r = stack.get("/metrics");
      assertEquals(200, r.statusCode(), r.body());
      return r.body();
    } catch (Exception e) {
      throw new AssertionError("GET /metrics", e);
    }
  }

  private static List<String> families(String scrape) {
    return scrape.lines().filter(l -> l.startsWith("# TYPE ")).map(l -> l.split(" ")[2]).toList();
  }

  private static List<String> series(String scrape) {
    return scrape.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
  }

  private static String largest(String scrape) {
    Map<String, Integer> bytes = new LinkedHashMap<>();
    for (String line : series(scrape)) {
      bytes.merge(line.split("[{ ]", 2)[0], line.length() + 1, Integer::sum);
    }
    StringBuilder out = new StringBuilder();
    bytes.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(10)
        .forEach(e -> out.append(e.getValue()).append(' ').append(e.getKey()).append('\n'));
    return out.toString();
  }

  private static String grep(String scrape, String prefix) {
    StringBuilder out = new StringBuilder();
    scrape.lines().filter(l -> l.startsWith(prefix)).forEach(l -> out.append(l).append('\n'));
    return out.toString();
  }
}
