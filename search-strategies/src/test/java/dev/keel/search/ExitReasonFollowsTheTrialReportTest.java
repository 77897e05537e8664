package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.TrialReport;
import org.junit.jupiter.api.Test;

/**
 * Every reason a trial can report reaches the searcher as the reason of the same name; none is made
 * up.
 */
class ExitReasonFollowsTheTrialReportTest {

  @Test
  void everyReportedReasonMapsToItsNamesake() {
    for (TrialReport.Exit.Reason reported : TrialReport.Exit.Reason.values()) {
      if (reported == TrialReport.Exit.Reason.REASON_UNSPECIFIED
          || reported == TrialReport.Exit.Reason.UNRECOGNIZED) {
        continue;
      }
      assertEquals(reported.name(), ExitReason.of(reported).name());
    }
    assertEquals(
        ExitReason.values().length,
        TrialReport.Exit.Reason.values().length - 2,
        "a searcher reason no trial reports");
  }

  @Test
  void anExitWithoutAReasonIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> ExitReason.of(TrialReport.Exit.Reason.REASON_UNSPECIFIED));
  }
}
