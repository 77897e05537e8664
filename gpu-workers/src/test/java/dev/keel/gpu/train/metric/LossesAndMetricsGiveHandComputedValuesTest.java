package dev.keel.gpu.train.metric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.gpu.model.Task;
import org.junit.jupiter.api.Test;

/**
 * Each loss and metric on small hand-made outputs, against values worked out by hand (in the
 * comments), and split over two batches where a metric gathers batch by batch.
 */
class LossesAndMetricsGiveHandComputedValuesTest {

  @Test
  void regressionLossesPerExample() {
    try (NDManager m = NDManager.newBaseManager()) {
      NDArray out = m.create(new float[] {1f, 2f, 5f}, new Shape(3, 1));
      NDArray y = m.create(new float[] {1.5f, 2f, 2f});
      // differences -0.5, 0, 3
      assertArray(new float[] {0.25f, 0f, 9f}, Losses.MSE.perExample(out, y));
      assertArray(new float[] {0.5f, 0f, 3f}, Losses.L1.perExample(out, y));
      // 0.5 * 0.25 below delta 1; 3 - 0.5 above
      assertArray(new float[] {0.125f, 0f, 2.5f}, Losses.HUBER.perExample(out, y));
    }
  }

  @Test
  void labelSmoothingMixesTheLabelWithTheMeanOverClasses() {
    try (NDManager m = NDManager.newBaseManager()) {
      // logits (0, ln 3): softmax (1/4, 3/4); label 1
      NDArray logits = m.create(new float[] {0f, (float) Math.log(3)}, new Shape(1, 2));
      NDArray y = m.create(new long[] {1});
      double nll = -Math.log(0.75);
      double uniform = -(Math.log(0.25) + Math.log(0.75)) / 2;
      assertEquals(nll, Losses.SOFTMAX_CROSS_ENTROPY.perExample(logits, y).getFloat(), 1e-6);
      Loss smoothed = Losses.choose(Task.CLASSIFICATION, "", 0.2);
      // 0.8 * 0.28768 + 0.2 * 0.83698 = 0.39754
      assertEquals(0.8 * nll + 0.2 * uniform, smoothed.perExample(logits, y).getFloat(), 1e-6);
      assertEquals(0.39754, smoothed.perExample(logits, y).getFloat(), 1e-5);
    }
  }

  @Test
  void theLossIsChosenByTaskAndName() {
    assertSame(Losses.MSE, Losses.choose(Task.REGRESSION, "", 0));
    assertSame(Losses.HUBER, Losses.choose(Task.REGRESSION, "huber", 0));
    assertSame(Losses.SOFTMAX_CROSS_ENTROPY, Losses.choose(Task.CLASSIFICATION, "", 0));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> Losses.choose(Task.CLASSIFICATION, "mse", 0))
            .getMessage()
            .contains("'mse' is a regression loss, the table's task is classification"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Losses.choose(Task.REGRESSION, "", 0.1))
            .getMessage()
            .startsWith("hyperparameters.label_smoothing"));
    assertThrows(IllegalArgumentException.class, () -> Losses.choose(Task.CLASSIFICATION, "", 1.5));
    assertThrows(
        IllegalArgumentException.class, () -> Losses.choose(Task.CLASSIFICATION, "hinge", 0));
  }

  @Test
  void regressionMetricsOverTwoBatches() {
    try (NDManager m = NDManager.newBaseManager()) {
      // targets 1, 2, 3, 4 (mean 2.5, total sum of squares 5); predictions 1, 3, 3, 2
      // errors 0, 1, 0, -2: MAE 3/4, RMSE sqrt(5/4), R² 1 - 5/5 = 0
      float[] p = {1f, 3f, 3f, 2f};
      float[] y = {1f, 2f, 3f, 4f};
      assertEquals(0.75, twoBatches(m, ValidationMetrics.MAE, p, y), 1e-9);
      assertEquals(Math.sqrt(1.25), twoBatches(m, ValidationMetrics.RMSE, p, y), 1e-9);
      assertEquals(0.0, twoBatches(m, ValidationMetrics.R2, p, y), 1e-9);
      // predictions 1, 2, 3, 3.5: SSE 0.25, R² 1 - 0.25/5 = 0.95
      assertEquals(
          0.95, twoBatches(m, ValidationMetrics.R2, new float[] {1f, 2f, 3f, 3.5f}, y), 1e-7);
    }
    assertTrue(ValidationMetrics.MAE.smallerIsBetter());
    assertTrue(ValidationMetrics.RMSE.smallerIsBetter());
    assertFalse(ValidationMetrics.R2.smallerIsBetter());
  }

  @Test
  void topFiveAccuracyAndMacroF1OnHandMadeLogits() {
    try (NDManager m = NDManager.newBaseManager()) {
      // 6 classes; row 0's label 0 is the best (top-1 hit), row 1's label 5 ranks 6th (miss),
      // row 2's label 2 ranks 5th (top-5 hit), row 3's label 1 ranks 2nd (top-5 hit)
      float[][] logits = {
        {9, 1, 2, 3, 4, 5},
        {9, 8, 7, 6, 5, 0},
        {9, 8, 1, 7, 6, 0},
        {1, 5, 0, 0, 9, 0},
      };
      long[] labels = {0, 5, 2, 1};
      assertEquals(0.75, classification(m, ValidationMetrics.TOP5_ACCURACY, logits, labels));
      // predictions 0, 0, 0, 4. class 0: tp 1, predicted 3, actual 1: F1 2/4 = 0.5;
      // classes 1, 2, 4, 5: F1 0; class 3 neither labelled nor predicted, left out: 0.5 / 5
      assertEquals(0.1, classification(m, ValidationMetrics.MACRO_F1, logits, labels), 1e-12);
      // all right: every present class has F1 1
      assertEquals(
          1.0,
          classification(
              m,
              ValidationMetrics.MACRO_F1,
              new float[][] {{1, 0}, {0, 1}, {0, 1}},
              new long[] {0, 1, 1}));
    }
    assertFalse(ValidationMetrics.TOP5_ACCURACY.smallerIsBetter());
    assertFalse(ValidationMetrics.MACRO_F1.smallerIsBetter());
    assertEquals(
        java.util.List.of(
            ValidationMetrics.LOSS,
            ValidationMetrics.MAE,
            ValidationMetrics.RMSE,
            ValidationMetrics.R2),
        ValidationMetrics.of(Task.REGRESSION));
  }

  @Test
  void rocAucRanksEachClassAgainstTheRestAndCountsTiesHalf() {
    try (NDManager m = NDManager.newBaseManager()) {
      // two classes, logits (0, s): class 1's probability rises with s. Labels 0, 0, 1, 1 with
      // s = 0.1, 0.4, 0.35, 0.8: of the 4 (positive, negative) pairs 3 are ordered right, so 0.75
      // for class 1, and for class 0 (the same pairs reversed): macro 0.75
      float[][] logits = {{0, 0.1f}, {0, 0.4f}, {0, 0.35f}, {0, 0.8f}};
      assertEquals(
          0.75,
          classification(m, ValidationMetrics.ROC_AUC, logits, new long[] {0, 0, 1, 1}),
          1e-12);
      // equal scores: a tie counts one half
      assertEquals(
          0.5,
          classification(
              m, ValidationMetrics.ROC_AUC, new float[][] {{0, 1}, {0, 1}}, new long[] {0, 1}),
          1e-12);
      // three classes, class 2 never labelled: left out; classes 0 and 1 perfectly ranked
      assertEquals(
          1.0,
          classification(
              m,
              ValidationMetrics.ROC_AUC,
              new float[][] {{5, 0, 0}, {4, 1, 0}, {0, 5, 1}},
              new long[] {0, 0, 1}),
          1e-12);
    }
    assertFalse(ValidationMetrics.ROC_AUC.smallerIsBetter());
  }

  @Test
  void binaryCrossEntropyWithLogitsAveragesEachRowsLabels() {
    try (NDManager m = NDManager.newBaseManager()) {
      // row 0: logits (0, ln 3), targets (1, 0): -ln(1/2) and -ln(1 - 3/4) = ln 2 and ln 4
      // row 1: logit 40 with target 1 (about 0) and -40 with target 1 (40, no overflow)
      NDArray logits = m.create(new float[] {0f, (float) Math.log(3), 40f, -40f}, new Shape(2, 2));
      NDArray y = m.create(new float[] {1f, 0f, 1f, 1f}, new Shape(2, 2));
      float[] loss = Losses.BCE_WITH_LOGITS.perExample(logits, y).toFloatArray();
      assertEquals((Math.log(2) + Math.log(4)) / 2, loss[0], 1e-6);
      assertEquals(20.0, loss[1], 1e-5);
      // a soft target 0.25 at logit 0: -(0.25 ln 1/2 + 0.75 ln 1/2) = ln 2
      NDArray soft = m.create(new float[] {0.25f}, new Shape(1, 1));
      assertEquals(
          Math.log(2),
          Losses.BCE_WITH_LOGITS.perExample(m.zeros(new Shape(1, 1)), soft).getFloat(),
          1e-6);
    }
    assertSame(Losses.BCE_WITH_LOGITS, Losses.choose(Task.MULTILABEL, "", 0));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> Losses.choose(Task.MULTILABEL, "softmax_cross_entropy", 0))
            .getMessage()
            .contains("is a classification loss, the table's task is multilabel"));
  }

  @Test
  void multilabelRocAucIsReportedPerLabelAndAsTheMeanOfTheLabelsThatHaveBothKinds() {
    try (NDManager m = NDManager.newBaseManager()) {
      // label 0: targets 0, 0, 1, 1 with logits 0.1, 0.4, 0.35, 0.8: 3 of 4 pairs right, 0.75
      // label 1: targets 1, 0, 0, 0 with logits 2, 1, 0, -1: perfectly ranked, 1.0
      // label 2: every target 0: no figure, left out of the mean
      float[] logits = {0.1f, 2, 0, 0.4f, 1, 0, 0.35f, 0, 0, 0.8f, -1, 0};
      float[] y = {0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0};
      Metric.Tally t = ValidationMetrics.MULTILABEL_ROC_AUC.start();
      for (int half = 0; half < 2; half++) {
        t.add(
            m.create(java.util.Arrays.copyOfRange(logits, half * 6, half * 6 + 6), new Shape(2, 3)),
            m.create(java.util.Arrays.copyOfRange(y, half * 6, half * 6 + 6), new Shape(2, 3)),
            null);
      }
      assertEquals(java.util.Map.of(0, 0.75, 1, 1.0), t.perLabel());
      assertEquals(0.875, t.value(4), 1e-12);
    }
    assertEquals(
        java.util.List.of(ValidationMetrics.LOSS, ValidationMetrics.MULTILABEL_ROC_AUC),
        ValidationMetrics.of(Task.MULTILABEL));
    assertSame(
        ValidationMetrics.MULTILABEL_ROC_AUC,
        ValidationMetrics.of("validation_roc_auc.drama").orElseThrow(),
        "a per-label figure is a metric the searcher may name");
    assertTrue(ValidationMetrics.of("validation_accuracy.drama").isEmpty());
    assertTrue(ValidationMetrics.names().contains("validation_roc_auc.<label>"));
  }

  private static double twoBatches(NDManager m, Metric metric, float[] p, float[] y) {
    Metric.Tally t = metric.start();
    int half = p.length / 2;
    for (int[] range : new int[][] {{0, half}, {half, p.length}}) {
      float[] pp = java.util.Arrays.copyOfRange(p, range[0], range[1]);
      float[] yy = java.util.Arrays.copyOfRange(y, range[0], range[1]);
      t.add(m.create(pp, new Shape(pp.length, 1)), m.create(yy), null);
    }
    return t.value(p.length);
  }

  private static double classification(
      NDManager m, Metric metric, float[][] logits, long[] labels) {
    Metric.Tally t = metric.start();
    for (int i = 0; i < labels.length; i++) {
      t.add(m.create(new float[][] {logits[i]}), m.create(new long[] {labels[i]}), null);
    }
    return t.value(labels.length);
  }

  private static void assertArray(float[] expected, NDArray actual) {
    float[] a = actual.toFloatArray();
    assertEquals(expected.length, a.length);
    for (int i = 0; i < a.length; i++) {
      assertEquals(expected[i], a[i], 1e-6, "element " + i);
    }
  }
}
