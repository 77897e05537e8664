package dev.keel.service.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.SearcherBracket;
import dev.keel.search.BracketRungs;
import dev.keel.tables.catalog.ExperimentHistory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rungs of an experiment view: {@code [{"bracket", "length", "trials": [{"trial_id", "outcome",
 * "metric"}]}]}, brackets in the searcher's order, each bracket's rungs shortest first, a rung's
 * trials best first (those without a result there last, by id). Outcomes: {@code training} (toward
 * the rung), {@code waiting} (may still be promoted), {@code promoted}, {@code stopped}, {@code
 * completed} (the bracket's last rung). A metric is the trial's searcher metric at the rung's
 * length.
 *
 * <p>Three sources, best first: the searcher's own rungs and decisions (the workflow's {@code
 * state} query, while Temporal has the experiment); for an experiment only the catalog knows, each
 * trial put in the bracket whose rungs it was validated at (exact unless {@code
 * min_validation_period} validated it at another bracket's rung length as well); for searchers
 * without brackets, the lengths of their plan that trials were validated at.
 */
final class ExperimentRungs {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where a view's rungs came from: {@code searcher} or {@code validations}. */
  static final String FROM_SEARCHER = "searcher";

  static final String FROM_VALIDATIONS = "validations";

  private final ExperimentHistory.Records records;
  private final String metric;
  private final boolean smallerIsBetter;

  ExperimentRungs(ExperimentHistory.Records records, String metric, boolean smallerIsBetter) {
    this.records = records;
    this.metric = metric;
    this.smallerIsBetter = smallerIsBetter;
  }

  /** The searcher's brackets as its workflow reports them. */
  ArrayNode fromSearcher(List<SearcherBracket> brackets) {
    ArrayNode out = JSON.createArrayNode();
    for (SearcherBracket b : brackets) {
      for (SearcherBracket.Rung r : b.getRungsList()) {
        long length = TrainingLength.of(r.getLength()).units();
        List<Placed> trials = new ArrayList<>();
        r.getTrialsList()
            .forEach(m -> trials.add(new Placed(m.getTrialId(), m.getOutcome().name())));
        rung(out, b.getGroup(), length, trials);
      }
    }
    return out;
  }

  /**
   * Brackets of a searcher that no longer runs: each trial in the bracket with the most rungs all
   * of whose rungs up to the trial's longest validation it was validated at. Sets each trial's
   * {@code group}.
   */
  ArrayNode inferred(List<BracketRungs> brackets, ArrayNode trials) {
    Map<Long, NavigableSet<Long>> validated = validatedLengths();
    Map<Long, String> stateOf = states(trials);
    Map<String, Map<Long, List<Placed>>> placed = new TreeMap<>();
    validated.forEach(
        (trial, lengths) -> {
          BracketRungs best = null;
          int bestRungs = 0;
          for (BracketRungs b : brackets) {
            List<Long> reached =
                b.rungs().stream()
                    .map(BracketRungs.Rung::length)
                    .filter(l -> l <= lengths.last())
                    .toList();
            if (!reached.isEmpty() && lengths.containsAll(reached) && reached.size() > bestRungs) {
              best = b;
              bestRungs = reached.size();
            }
          }
          if (best == null) {
            return;
          }
          List<Long> rungs = best.rungs().stream().map(BracketRungs.Rung::length).toList();
          for (long length : rungs.subList(0, bestRungs)) {
            String outcome =
                length == rungs.get(rungs.size() - 1)
                    ? "COMPLETED"
                    : lengths.last() > length
                        ? "PROMOTED"
                        : isRunning(stateOf.get(trial)) ? "WAITING" : "STOPPED";
            placed
                .computeIfAbsent(best.group(), g -> new TreeMap<>())
                .computeIfAbsent(length, l -> new ArrayList<>())
                .add(new Placed(trial, outcome));
          }
          String group = best.group();
          trials.forEach(
              t -> {
                if (t.path("trial_id").asLong() == trial) {
                  ((ObjectNode) t).put("group", group);
                }
              });
        });
    ArrayNode out = JSON.createArrayNode();
    for (BracketRungs b : brackets) {
      for (BracketRungs.Rung r : b.rungs()) {
        rung(
            out,
            b.group(),
            r.length(),
            placed.getOrDefault(b.group(), Map.of()).getOrDefault(r.length(), List.of()));
      }
    }
    return out;
  }

  /**
   * Searchers without brackets: each of the plan's lengths (all validated lengths when there is no
   * plan) that a trial was validated at; validations between them ({@code min_validation_period})
   * are on the curves only.
   */
  ArrayNode fromLengths(Set<Long> planned, ArrayNode trials) {
    Map<Long, NavigableSet<Long>> validated = validatedLengths();
    Map<Long, String> stateOf = states(trials);
    long last = planned.stream().mapToLong(Long::longValue).max().orElse(Long.MAX_VALUE);
    Map<Long, List<Placed>> byLength = new TreeMap<>();
    validated.forEach(
        (trial, lengths) ->
            lengths.stream()
                .filter(l -> planned.isEmpty() || planned.contains(l))
                .forEach(
                    length ->
                        byLength
                            .computeIfAbsent(length, l -> new ArrayList<>())
                            .add(
                                new Placed(
                                    trial,
                                    length == last
                                        ? "COMPLETED"
                                        : lengths.last() > length
                                            ? "PROMOTED"
                                            : isRunning(stateOf.get(trial))
                                                ? "WAITING"
                                                : "STOPPED"))));
    ArrayNode out = JSON.createArrayNode();
    byLength.forEach((length, placed) -> rung(out, "", length, placed));
    return out;
  }

  private record Placed(long trialId, String outcome) {}

  private void rung(ArrayNode out, String bracket, long length, List<Placed> placed) {
    Map<Long, Double> value = new TreeMap<>();
    for (ExperimentHistory.Metric m : records.metrics()) {
      if (m.name().equals(metric) && m.length() == length) {
        value.put(m.trialId(), m.value());
      }
    }
    Comparator<Placed> best =
        Comparator.comparing((Placed p) -> !value.containsKey(p.trialId()))
            .thenComparing(
                p ->
                    value.containsKey(p.trialId())
                        ? (smallerIsBetter ? 1 : -1) * value.get(p.trialId())
                        : 0.0)
            .thenComparingLong(Placed::trialId);
    ObjectNode rung = out.addObject();
    if (!bracket.isEmpty()) {
      rung.put("bracket", bracket);
    }
    ArrayNode trials = rung.put("length", length).putArray("trials");
    placed.stream()
        .sorted(best)
        .forEach(
            p -> {
              ObjectNode t =
                  trials
                      .addObject()
                      .put("trial_id", p.trialId())
                      .put("outcome", p.outcome().toLowerCase(Locale.ROOT));
              if (value.containsKey(p.trialId()) && !"TRAINING".equals(p.outcome())) {
                t.put("metric", value.get(p.trialId()));
              }
            });
  }

  private Map<Long, NavigableSet<Long>> validatedLengths() {
    Map<Long, NavigableSet<Long>> out = new TreeMap<>();
    for (ExperimentHistory.Metric m : records.metrics()) {
      if (m.name().equals(metric)) {
        out.computeIfAbsent(m.trialId(), t -> new TreeSet<>()).add(m.length());
      }
    }
    return out;
  }

  private static Map<Long, String> states(ArrayNode trials) {
    Map<Long, String> out = new TreeMap<>();
    for (JsonNode t : trials) {
      out.put(t.path("trial_id").asLong(), t.path("state").asText(""));
    }
    return out;
  }

  private static boolean isRunning(String state) {
    return "ACTIVE".equals(state) || "PAUSED".equals(state);
  }
}
