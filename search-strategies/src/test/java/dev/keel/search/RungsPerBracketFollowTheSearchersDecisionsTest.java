package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.BracketRungs.Outcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rungs a searcher reports per bracket agree with the operations it issued, after every event
 * of a whole search: a trial is only in its own bracket ({@link Searcher#trialGroup}); it trains
 * toward a rung exactly while the searcher's last ValidateAfter for it asks for that length; it is
 * at a rung it validated at; it is promoted there only if the searcher sent it further; it
 * completed only at its bracket's last rung. Brackets of different rung counts share lengths (both
 * end at max_length), and those are still separate rungs.
 */
class RungsPerBracketFollowTheSearchersDecisionsTest {

  static Stream<Arguments> searchers() {
    return Stream.of(
        Arguments.of(
            "adaptive_asha",
            searcher(
                SearcherConfig.newBuilder().setName("adaptive_asha").setDivisor(2).setMaxRungs(3))),
        Arguments.of(
            "adaptive_asha conservative",
            searcher(
                SearcherConfig.newBuilder()
                    .setName("adaptive_asha")
                    .setDivisor(2)
                    .setMaxRungs(3)
                    .setMode(SearcherConfig.Mode.conservative))),
        Arguments.of(
            "adaptive_asha stop_once",
            searcher(
                SearcherConfig.newBuilder()
                    .setName("adaptive_asha")
                    .setDivisor(2)
                    .setMaxRungs(3)
                    .setStopOnce(true))),
        Arguments.of(
            "hyperband",
            searcher(SearcherConfig.newBuilder().setName("hyperband").setEta(2).setMaxRungs(3))));
  }

  private static Searcher searcher(SearcherConfig.Builder s) {
    return Searchers.create(
        ExperimentConfig.newBuilder()
            .putHyperparameters(
                "x",
                Hyperparameter.newBuilder().setType("double").setMinval(0).setMaxval(1).build())
            .setSearcher(
                s.setMetric("loss")
                    .setSmallerIsBetter(true)
                    .setMaxTrials(12)
                    .setMaxConcurrentTrials(3)
                    .setSeed(5)
                    .setMaxLength(Length.newBuilder().setBatches(64)))
            .build());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("searchers")
  void everyReportAgreesWithTheOperationsSoFar(String name, Searcher searcher) {
    List<BracketRungs> plan = searcher.rungs();
    assertTrue(plan.size() > 1, "several brackets: " + plan);
    plan.forEach(
        b ->
            b.rungs()
                .forEach(
                    r -> assertTrue(r.trials().isEmpty(), "a fresh searcher has no trials: " + b)));
    Map<String, List<Long>> lengths = new TreeMap<>();
    plan.forEach(
        b -> lengths.put(b.group(), b.rungs().stream().map(BracketRungs.Rung::length).toList()));
    assertEquals(plan.size(), lengths.size(), "groups are unique: " + plan);

    Map<Long, Long> asked = new TreeMap<>();
    Map<Long, TreeSet<Long>> validated = new TreeMap<>();
    Deque<Operation> ops = new ArrayDeque<>(searcher.initialOperations());
    ops.stream()
        .filter(o -> o instanceof ValidateAfter)
        .map(o -> (ValidateAfter) o)
        .forEach(v -> asked.put(v.trialId(), v.length().units()));
    check(searcher, asked, validated, lengths);
    while (!ops.isEmpty()) {
      Operation op = ops.poll();
      List<Operation> next;
      if (op instanceof Create c) {
        next = searcher.trialCreated(c.trialId());
      } else if (op instanceof ValidateAfter v) {
        asked.put(v.trialId(), v.length().units());
        validated.computeIfAbsent(v.trialId(), t -> new TreeSet<>()).add(v.length().units());
        // the trial's score depends on its id only: a ranking that stays the same at every rung
        double metric = ((v.trialId() * 7919) % 13) / 13.0 + 1.0 / v.length().units();
        next =
            searcher.validationCompleted(
                v.trialId(), metric, new TrainingLength(v.length().units(), LengthUnit.BATCHES));
        asked.remove(v.trialId());
      } else if (op instanceof Close c) {
        next = searcher.trialClosed(c.trialId());
      } else {
        continue;
      }
      for (Operation o : next) {
        if (o instanceof ValidateAfter v) {
          asked.put(v.trialId(), v.length().units());
        }
      }
      ops.addAll(next);
      check(searcher, asked, validated, lengths);
    }
    assertTrue(searcher.isShutdown());
    searcher
        .rungs()
        .forEach(
            b ->
                b.rungs()
                    .forEach(
                        r ->
                            r.trials()
                                .forEach(
                                    m ->
                                        assertFalse(
                                            m.outcome() == Outcome.TRAINING
                                                || m.outcome() == Outcome.WAITING,
                                            "the search ended, yet " + m + " in " + b))));
    // each trial is at every rung it validated at
    Map<Long, TreeSet<Long>> shown = new TreeMap<>();
    searcher
        .rungs()
        .forEach(
            b ->
                b.rungs()
                    .forEach(
                        r ->
                            r.trials()
                                .forEach(
                                    m ->
                                        shown
                                            .computeIfAbsent(m.trialId(), t -> new TreeSet<>())
                                            .add(r.length()))));
    assertEquals(validated, shown);
  }

  private static void check(
      Searcher searcher,
      Map<Long, Long> asked,
      Map<Long, TreeSet<Long>> validated,
      Map<String, List<Long>> lengths) {
    List<BracketRungs> report = searcher.rungs();
    assertEquals(
        lengths.keySet(), new TreeSet<>(report.stream().map(BracketRungs::group).toList()));
    // training toward a rung: every request the searcher issued, and those still queued behind the
    // concurrency limit
    Map<Long, Long> training = new TreeMap<>();
    report.forEach(
        b ->
            b.rungs()
                .forEach(
                    r ->
                        r.trials().stream()
                            .filter(m -> m.outcome() == Outcome.TRAINING)
                            .forEach(
                                m ->
                                    assertEquals(
                                        null,
                                        training.put(m.trialId(), r.length()),
                                        "trains toward one rung: " + m))));
    asked.forEach(
        (trial, length) ->
            assertEquals(
                length, training.get(trial), "trial " + trial + " was asked for " + length));
    for (BracketRungs b : report) {
      assertEquals(
          lengths.get(b.group()), b.rungs().stream().map(BracketRungs.Rung::length).toList());
      for (int i = 0; i < b.rungs().size(); i++) {
        BracketRungs.Rung rung = b.rungs().get(i);
        List<Long> ids = new ArrayList<>();
        for (BracketRungs.Member m : rung.trials()) {
          String where = m + " at " + rung.length() + " in " + b.group();
          ids.add(m.trialId());
          assertEquals(b.group(), searcher.trialGroup(m.trialId()), where);
          if (m.outcome() == Outcome.TRAINING) {
            continue;
          }
          assertTrue(
              validated.getOrDefault(m.trialId(), new TreeSet<>()).contains(rung.length()),
              where + ": never validated there");
          boolean sentOn =
              validated.get(m.trialId()).last() > rung.length()
                  || training.getOrDefault(m.trialId(), 0L) > rung.length();
          assertEquals(sentOn, m.outcome() == Outcome.PROMOTED, where);
          assertEquals(i == b.rungs().size() - 1, m.outcome() == Outcome.COMPLETED, where);
        }
        assertEquals(ids.size(), new TreeSet<>(ids).size(), "a trial is once in a rung: " + rung);
      }
    }
  }
}
