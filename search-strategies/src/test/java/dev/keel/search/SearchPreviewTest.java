package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Length;
import dev.keel.search.asha.AshaPlan;
import dev.keel.search.sim.SimulationStoppedException;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code preview(config)} lists the trials and lengths a config will produce. */
class SearchPreviewTest {

  @Test
  void ashaPreviewShowsEveryBracketsRungLengthsAndAllTrials() {
    ExperimentConfig c =
        Scenarios.config(
            Scenarios.searcher("adaptive_asha", 1)
                .setMaxTrials(300)
                .setMaxLength(Length.newBuilder().setBatches(2560)));
    SearchPreview p = Searchers.preview(c);
    assertEquals(300, p.trials());
    assertEquals(300, p.rows().stream().mapToInt(SearchPreview.Row::trials).sum());
    Set<Long> rungLengths =
        AshaPlan.of(c.getSearcher()).brackets().stream()
            .flatMap(b -> b.rungLengths().stream())
            .collect(Collectors.toSet());
    assertTrue(p.rows().stream().allMatch(r -> rungLengths.contains(r.length())));
    assertTrue(
        p.rows().stream()
            .anyMatch(r -> r.group().equals("bracket 1 (5 rungs)") && r.length() == 10));
    String table = p.toTable();
    assertTrue(table.startsWith("Using adaptive_asha search method"), table);
    assertTrue(
        table.contains("10 batches")
            && table.contains("2560 batches")
            && table.contains("Total: 300 trials"),
        table);
  }

  @Test
  void randomPreviewTrainsEveryTrialToMaxLength() {
    SearchPreview p = Searchers.preview(Scenarios.config(Scenarios.searcher("random", 1)));
    assertEquals(1, p.rows().size());
    assertEquals(
        new SearchPreview.Row("", Scenarios.MAX_LENGTH, Scenarios.MAX_TRIALS), p.rows().get(0));
    assertEquals(Scenarios.MAX_TRIALS * Scenarios.MAX_LENGTH, p.totalUnits());
  }

  @Test
  void ashaPreviewAtTheTrialLimitPlansEveryTrial() {
    // each result is ranked in O(log n): this ran for minutes while a rung was a sorted list
    // scanned per result
    for (boolean stopOnce : new boolean[] {false, true}) {
      ExperimentConfig c =
          Scenarios.config(
              Scenarios.searcher("adaptive_asha", 1)
                  .setMaxTrials(ConfigLimits.MAX_TRIALS)
                  .setMaxConcurrentTrials(16)
                  .setStopOnce(stopOnce)
                  .setMaxLength(Length.newBuilder().setBatches(2560)));
      SearchPreview p = Searchers.preview(c);
      assertEquals(ConfigLimits.MAX_TRIALS, p.trials(), "stop_once " + stopOnce);
      assertEquals(
          ConfigLimits.MAX_TRIALS, p.rows().stream().mapToInt(SearchPreview.Row::trials).sum());
    }
  }

  @Test
  void aTpePreviewPlansWhatTheTpeSearchItselfWould() {
    // the preview draws from the prior: with random metrics the points drawn never change the plan
    SearcherOptions tpe = SearcherOptions.defaults().withAshaSampler(SearcherOptions.TPE_SAMPLER);
    for (String name : new String[] {"tpe", "adaptive_asha", "hyperband"}) {
      ExperimentConfig c =
          Scenarios.config(Scenarios.searcher(name, 3).setMaxTrials(400).setMaxConcurrentTrials(7));
      assertEquals(SearchPreview.of(Searchers.create(c, tpe), c), Searchers.preview(c, tpe), name);
    }
  }

  @Test
  void aPreviewStopsWhenItsCallerSaysSo() {
    ExperimentConfig c =
        Scenarios.config(Scenarios.searcher("adaptive_asha", 1).setMaxTrials(5000));
    int[] asked = new int[1];
    assertThrows(
        SimulationStoppedException.class,
        () -> Searchers.preview(ExperimentConfigs.validatedSearch(c), () -> ++asked[0] > 3));
    assertEquals(4, asked[0]);
  }

  @Test
  void previewIsDeterministic() {
    ExperimentConfig c = Scenarios.config(Scenarios.searcher("hyperband", 3));
    assertEquals(Searchers.preview(c), Searchers.preview(c));
  }
}
