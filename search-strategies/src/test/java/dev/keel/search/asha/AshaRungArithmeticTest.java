package dev.keel.search.asha;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.Create;
import dev.keel.search.Operation;
import dev.keel.search.Searchers;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rung arithmetic pinned against worked examples: divisor 4, max_rungs 5, max_trials 1000,
 * max_length 2560.
 */
class AshaRungArithmeticTest {

  private static SearcherConfig.Builder base() {
    return SearcherConfig.newBuilder()
        .setName("adaptive_asha")
        .setMetric("loss")
        .setMaxTrials(1000)
        .setDivisor(4)
        .setMaxRungs(5)
        .setMaxLength(Length.newBuilder().setBatches(2560));
  }

  private static List<Integer> rungs(AshaPlan p) {
    return p.brackets().stream().map(AshaPlan.Bracket::numRungs).toList();
  }

  private static List<Integer> trials(AshaPlan p) {
    return p.brackets().stream().map(AshaPlan.Bracket::maxTrials).toList();
  }

  @Test
  void aggressiveModeRunsOneBracketOfFiveRungsWithEveryTrial() {
    AshaPlan p = AshaPlan.of(base().setMode(SearcherConfig.Mode.aggressive).build());
    assertEquals(List.of(5), rungs(p));
    assertEquals(List.of(1000), trials(p));
  }

  @Test
  void standardModeRunsBracketsOfFiveFourAndThreeRungs() {
    // weights 4^4/5 = 51.2, 4^3/4 = 16, 4^2/3 = 5.33: 705 + 220 + 73 = 998, remainder 2 to the
    // first bracket
    AshaPlan p = AshaPlan.of(base().setMode(SearcherConfig.Mode.standard).build());
    assertEquals(List.of(5, 4, 3), rungs(p));
    assertEquals(List.of(707, 220, 73), trials(p));
  }

  @Test
  void standardIsTheDefaultMode() {
    assertEquals(
        rungs(AshaPlan.of(base().setMode(SearcherConfig.Mode.standard).build())),
        rungs(AshaPlan.of(base().build())));
  }

  @Test
  void conservativeModeRunsOneBracketPerRungCount() {
    // weights 51.2, 16, 5.33, 2, 1: 677 + 211 + 70 + 26 + 13 = 997, remainder 3
    AshaPlan p = AshaPlan.of(base().setMode(SearcherConfig.Mode.conservative).build());
    assertEquals(List.of(5, 4, 3, 2, 1), rungs(p));
    assertEquals(List.of(680, 211, 70, 26, 13), trials(p));
  }

  @Test
  void rungLengthsDivideMaxLengthByPowersOfTheDivisor() {
    AshaPlan p = AshaPlan.of(base().setMode(SearcherConfig.Mode.standard).build());
    assertEquals(List.of(10L, 40L, 160L, 640L, 2560L), p.brackets().get(0).rungLengths());
    assertEquals(List.of(40L, 160L, 640L, 2560L), p.brackets().get(1).rungLengths());
    assertEquals(List.of(160L, 640L, 2560L), p.brackets().get(2).rungLengths());
  }

  @Test
  void trialsReachingEachRungShrinkByTheDivisor() {
    AshaPlan.Bracket b =
        AshaPlan.of(base().setMode(SearcherConfig.Mode.aggressive).build()).brackets().get(0);
    assertEquals(
        List.of(1000L, 250L, 62L, 15L, 3L),
        List.of(
            b.trialsReaching(0, 4),
            b.trialsReaching(1, 4),
            b.trialsReaching(2, 4),
            b.trialsReaching(3, 4),
            b.trialsReaching(4, 4)));
  }

  @Test
  void maxConcurrentTrialsIsSplitAcrossBracketsRemainderFirst() {
    AshaPlan p =
        AshaPlan.of(
            base().setMode(SearcherConfig.Mode.standard).setMaxConcurrentTrials(16).build());
    assertEquals(
        List.of(6, 5, 5),
        p.brackets().stream().map(AshaPlan.Bracket::maxConcurrentTrials).toList());
  }

  @Test
  void withoutMaxConcurrentTrialsDeterminedsSixteenSlotsAreSplitOverTheBrackets() {
    // Determined's default of 16, not each bracket's whole trial count (which let 219 trials train
    // at once)
    AshaPlan p = AshaPlan.of(base().setMode(SearcherConfig.Mode.standard).build());
    assertEquals(
        List.of(6, 5, 5),
        p.brackets().stream().map(AshaPlan.Bracket::maxConcurrentTrials).toList());
    assertEquals(16, p.totalConcurrency());
  }

  @Test
  void zeroWrittenOutGivesEachBracketTheLastBracketsTrialsOrTheDivisorAsDeterminedDoes() {
    // Determined's own cases (getBracketMaxConcurrentTrials with 0): [9, 3, 1] trials, divisor 3 ->
    // [3, 3, 3];
    // [40, 10], divisor 4 -> [10, 10]
    assertEquals(
        List.of(3, 3, 3),
        Arrays.stream(AshaPlan.zeroConcurrency(3, new int[] {9, 3, 1})).boxed().toList());
    assertEquals(
        List.of(10, 10),
        Arrays.stream(AshaPlan.zeroConcurrency(4, new int[] {40, 10})).boxed().toList());
    AshaPlan p =
        AshaPlan.of(base().setMode(SearcherConfig.Mode.standard).setMaxConcurrentTrials(0).build());
    assertEquals(
        List.of(73, 73, 73),
        p.brackets().stream().map(AshaPlan.Bracket::maxConcurrentTrials).toList(),
        "brackets of 707, 220 and 73 trials: max(73, 4) each, not the unset default's 6/5/5");
    assertEquals(219, p.totalConcurrency());
  }

  @Test
  void zeroWrittenOutLetsGridAndRandomStartEveryTrialAtOnce() {
    ExperimentConfig c =
        ExperimentConfig.newBuilder()
            .putHyperparameters(
                "x",
                Hyperparameter.newBuilder().setType("double").setMinval(0).setMaxval(1).build())
            .setSearcher(
                SearcherConfig.newBuilder()
                    .setName("random")
                    .setMetric("loss")
                    .setSmallerIsBetter(true)
                    .setMaxTrials(40)
                    .setMaxConcurrentTrials(0)
                    .setMaxLength(Length.newBuilder().setBatches(100)))
            .build();
    assertEquals(
        40,
        Searchers.create(c).initialOperations().stream()
            .filter(op -> op instanceof Create)
            .count());
    ExperimentConfig unset =
        c.toBuilder().setSearcher(c.getSearcher().toBuilder().clearMaxConcurrentTrials()).build();
    assertEquals(
        16,
        Searchers.create(unset).initialOperations().stream()
            .filter(op -> op instanceof Create)
            .count());
  }

  @Test
  void withoutMaxConcurrentTrialsTheSearcherStartsSixteenTrials() {
    ExperimentConfig c =
        ExperimentConfig.newBuilder()
            .putHyperparameters(
                "x",
                Hyperparameter.newBuilder().setType("double").setMinval(0).setMaxval(1).build())
            .setSearcher(base().setMode(SearcherConfig.Mode.standard))
            .build();
    List<Operation> first = Searchers.create(c).initialOperations();
    assertEquals(16, first.stream().filter(op -> op instanceof Create).count());
  }

  @Test
  void anExplicitMaxConcurrentTrialsKeepsItsMeaning() {
    AshaPlan p =
        AshaPlan.of(
            base().setMode(SearcherConfig.Mode.standard).setMaxConcurrentTrials(100).build());
    assertEquals(
        List.of(34, 33, 33),
        p.brackets().stream().map(AshaPlan.Bracket::maxConcurrentTrials).toList());
    // fewer slots than brackets: each bracket still gets one
    assertEquals(
        List.of(1, 1, 1),
        AshaPlan.of(base().setMode(SearcherConfig.Mode.standard).setMaxConcurrentTrials(2).build())
            .brackets()
            .stream()
            .map(AshaPlan.Bracket::maxConcurrentTrials)
            .toList());
  }

  @Test
  void maxRungsIsCappedByMaxLengthAndMaxTrials() {
    // 4^3 = 64 <= 100 < 256: at most 4 rungs
    assertEquals(
        4, AshaPlan.of(base().setMaxLength(Length.newBuilder().setEpochs(100)).build()).maxRungs());
    assertEquals(4, AshaPlan.of(base().setMaxTrials(100).build()).maxRungs());
    // exactly 4^4 = 256 allows 5 rungs
    assertEquals(5, AshaPlan.of(base().setMaxTrials(256).build()).maxRungs());
  }

  @Test
  void maxRungsCapIsExactAtPowersOfTheDivisorWhereDeterminedsFloatingPointLogLosesARung() {
    // log(1000)/log(10) = 2.9999999999999996 in floating point, so Determined caps at 3 rungs; 10^3
    // <= 1000 allows 4.
    // Keel keeps the exact rule (documented in AshaPlan, search-strategies/README.md and
    // docs/concepts.md); max_rungs: 3 reproduces Determined's plan.
    SearcherConfig.Builder tens =
        base()
            .setDivisor(10)
            .setMaxTrials(10_000)
            .setMaxLength(Length.newBuilder().setBatches(1000));
    AshaPlan exact = AshaPlan.of(tens.build());
    assertEquals(4, exact.maxRungs());
    assertEquals(List.of(1L, 10L, 100L, 1000L), exact.brackets().get(0).rungLengths());
    assertEquals(
        4,
        AshaPlan.of(
                tens.setMaxLength(Length.newBuilder().setBatches(100_000))
                    .setMaxTrials(1000)
                    .build())
            .maxRungs());
    assertEquals(
        List.of(10L, 100L, 1000L),
        AshaPlan.of(tens.setMaxLength(Length.newBuilder().setBatches(1000)).setMaxRungs(3).build())
            .brackets()
            .get(0)
            .rungLengths());
  }

  @Test
  void defaultsAreDivisorFourAndFiveRungs() {
    AshaPlan p =
        AshaPlan.of(
            SearcherConfig.newBuilder()
                .setName("adaptive_asha")
                .setMaxTrials(1000)
                .setMaxLength(Length.newBuilder().setBatches(2560))
                .build());
    assertEquals(4, p.divisor());
    assertEquals(5, p.maxRungs());
  }
}
