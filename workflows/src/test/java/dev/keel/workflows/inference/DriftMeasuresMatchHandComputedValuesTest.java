package dev.keel.workflows.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.DriftConfigRules;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.FeatureShift;
import dev.keel.api.v1.InputStatistics;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The three drift measures on hand-made statistics whose scores are worked out in the comments. */
class DriftMeasuresMatchHandComputedValuesTest {
  private static final double EPS = 1e-12;

  /**
   * Training data: 4 features; feature 3 is nearly constant (variance 0.01, mean variance about
   * 9.3).
   */
  private static final InputStatistics TRAIN =
      stats(
          1000,
          new double[] {10, 20, 30, 5},
          new double[] {4, 9, 24, 0.01},
          new long[] {500, 300, 200});

  private static InputStatistics stats(long rows, double[] mean, double[] variance, long[] labels) {
    InputStatistics.Builder b = InputStatistics.newBuilder().setRows(rows);
    for (int j = 0; j < mean.length; j++) {
      b.addMean(mean[j]).addVariance(variance[j]);
    }
    for (long c : labels) {
      b.addPredictedLabelCounts(c);
    }
    return b.build();
  }

  private static DriftReport report(InputStatistics run, String measure, double threshold) {
    return DriftCheck.report(
        run,
        TRAIN,
        DriftConfigRules.withDefaults(
            DriftConfig.newBuilder()
                .setMeasure(measure)
                .setThreshold(threshold)
                .setTopFeatures(2)
                .build()));
  }

  @Test
  void meanShiftAveragesStandardizedShiftsAndLeavesNearConstantFeaturesOut() {
    // |12-10|/2 = 1, |20-20|/3 = 0, |30-36|/sqrt(24) = 1.2247..., feature 3 left out although it
    // moved by 95 sd
    InputStatistics run =
        stats(
            200,
            new double[] {12, 20, 36, 5.95},
            new double[] {4, 9, 24, 0.01},
            new long[] {100, 60, 40});
    DriftReport r = report(run, "mean_shift", 0.5);
    double expected = (1 + 0 + 6 / Math.sqrt(24)) / 3;
    assertEquals(expected, r.getMeanShift(), EPS);
    assertEquals(expected, r.getScore(), EPS);
    assertEquals(3, r.getFeaturesCompared());
    assertTrue(r.getDrifted(), "0.7416 > 0.5");
    assertEquals(
        List.of(2, 0), r.getTopFeaturesList().stream().map(FeatureShift::getFeature).toList());
    assertEquals(36, r.getTopFeatures(0).getMean(), EPS);
    assertEquals(30, r.getTopFeatures(0).getReferenceMean(), EPS);
    // the same predicted-label distribution as the training labels: no label drift
    assertEquals(0, r.getTotalVariation(), EPS);
    assertEquals(0, r.getPsi(), EPS);
  }

  @Test
  void labelMeasuresCompareThePredictedWithTheTrainingLabelDistribution() {
    // run: 0.2, 0.2, 0.5, 0.1 (a label training never had); training: 0.5, 0.3, 0.2, 0
    InputStatistics run =
        stats(
            100,
            new double[] {10, 20, 30, 5},
            new double[] {4, 9, 24, 0.01},
            new long[] {20, 20, 50, 10});
    double tv = (0.3 + 0.1 + 0.3 + 0.1) / 2;
    double psi =
        (0.2 - 0.5) * Math.log(0.2 / 0.5)
            + (0.2 - 0.3) * Math.log(0.2 / 0.3)
            + (0.5 - 0.2) * Math.log(0.5 / 0.2)
            + (0.1 - 1e-4) * Math.log(0.1 / 1e-4);
    DriftReport byTv = report(run, "total_variation", 0.5);
    assertEquals(tv, byTv.getTotalVariation(), EPS);
    assertEquals(tv, byTv.getScore(), EPS);
    assertFalse(byTv.getDrifted(), "0.4 <= 0.5");
    assertEquals(0, byTv.getMeanShift(), EPS);

    DriftReport byPsi = report(run, "psi", 0.5);
    assertEquals(psi, byPsi.getPsi(), EPS);
    assertTrue(byPsi.getDrifted(), psi + " > 0.5");
  }

  @Test
  void aRunEqualToItsTrainingDataScoresZeroAndAnEmptyRunNeverDrifts() {
    DriftReport same = report(TRAIN, "mean_shift", 1e-9);
    assertEquals(0, same.getScore(), EPS);
    assertFalse(same.getDrifted());
    DriftReport empty = report(InputStatistics.newBuilder().setRows(0).build(), "psi", 1e-9);
    assertEquals(0, empty.getScore(), EPS);
    assertFalse(empty.getDrifted());
    assertEquals(1000, empty.getReferenceRows());
  }
}
