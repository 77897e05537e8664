package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.asha.AshaPlan;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code preview(config)} lists the trials and lengths a config will produce. */
class SearchPreviewTest {

  @Test
  void ashaPreviewShowsEveryBracketsRungLengthsAndAllTrials() {
    ExperimentConfig c = Scenarios.config(Scenarios.searcher("adaptive_asha", 1).setMaxTrials(300).setMaxLength(
        dev.keel.api.v1.Length.newBuilder().setBatches(2560)));
    SearchPreview p = Searchers.preview(c);
    assertEquals(300, p.trials());
    assertEquals(300, p.rows().stream().mapToInt(SearchPreview.Row::trials).sum());
    Set<Long> rungLengths = AshaPlan.of(c.getSearcher()).brackets().stream().flatMap(b -> b.rungLengths().stream()).collect(Collectors.toSet());
    assertTrue(p.rows().stream().allMatch(r -> rungLengths.contains(r.length())));
    assertTrue(p.rows().stream().anyMatch(r -> r.group().equals("bracket 1 (5 rungs)") && r.length() == 10));
    String table = p.toTable();
    assertTrue(table.startsWith("Using adaptive_asha search method"), table);
    assertTrue(table.contains("10 batches") && table.contains("2560 batches") && table.contains("Total: 300 trials"), table);
  }

  @Test
  void randomPreviewTrainsEveryTrialToMaxLength() {
    SearchPreview p = Searchers.preview(Scenarios.config(Scenarios.searcher("random", 1)));
    assertEquals(1, p.rows().size());
    assertEquals(new SearchPreview.Row("", Scenarios.MAX_LENGTH, Scenarios.MAX_TRIALS), p.rows().get(0));
    assertEquals(Scenarios.MAX_TRIALS * Scenarios.MAX_LENGTH, p.totalUnits());
  }

  @Test
  void previewIsDeterministic() {
    ExperimentConfig c = Scenarios.config(Scenarios.searcher("hyperband", 3));
    assertEquals(Searchers.preview(c), Searchers.preview(c));
  }
}
