package dev.keel.search.hyperband;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Li et al.'s worked example: R = 81, eta = 3 gives five brackets. */
class HyperbandBracketArithmeticTest {

  @Test
  void oneIterationWithR81AndEta3MatchesThePaper() {
    HyperbandPlan p =
        HyperbandPlan.of(
            SearcherConfig.newBuilder()
                .setName("hyperband")
                .setEta(3)
                .setMaxTrials(143)
                .setMaxLength(Length.newBuilder().setEpochs(81))
                .build());
    assertEquals(4, p.sMax());
    List<HyperbandPlan.Bracket> b = p.schedule();
    assertEquals(5, b.size());
    assertEquals(List.of(81, 27, 9, 3, 1), b.get(0).rungTrials());
    assertEquals(List.of(1L, 3L, 9L, 27L, 81L), b.get(0).rungLengths());
    assertEquals(List.of(34, 11, 3, 1), b.get(1).rungTrials());
    assertEquals(List.of(3L, 9L, 27L, 81L), b.get(1).rungLengths());
    assertEquals(List.of(15, 5, 1), b.get(2).rungTrials());
    assertEquals(List.of(8, 2), b.get(3).rungTrials());
    assertEquals(List.of(5), b.get(4).rungTrials());
    assertEquals(List.of(81L), b.get(4).rungLengths());
  }

  @Test
  void bracketsRepeatUntilMaxTrialsAndTheLastIsCutShort() {
    HyperbandPlan p =
        HyperbandPlan.of(
            SearcherConfig.newBuilder()
                .setName("hyperband")
                .setEta(3)
                .setMaxTrials(200)
                .setMaxLength(Length.newBuilder().setEpochs(81))
                .build());
    assertEquals(200, p.schedule().stream().mapToInt(HyperbandPlan.Bracket::trials).sum());
    assertEquals(List.of(57, 19, 6, 2, 1), p.schedule().get(5).rungTrials());
  }

  @Test
  void maxRungsCapsTheMostAggressiveBracket() {
    HyperbandPlan p =
        HyperbandPlan.of(
            SearcherConfig.newBuilder()
                .setName("hyperband")
                .setEta(3)
                .setMaxRungs(3)
                .setMaxTrials(50)
                .setMaxLength(Length.newBuilder().setEpochs(81))
                .build());
    assertEquals(2, p.sMax());
    assertEquals(List.of(9L, 27L, 81L), p.schedule().get(0).rungLengths());
  }
}
