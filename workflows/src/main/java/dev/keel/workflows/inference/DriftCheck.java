package dev.keel.workflows.inference;

import dev.keel.api.config.DriftConfigRules;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.FeatureShift;
import dev.keel.api.v1.InputStatistics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Compares a run's {@link InputStatistics} with its training data's and scores the move with three
 * measures (docs/drift.md says why these): the mean standardized shift of the feature means, and
 * the total-variation distance and the population stability index between the run's predicted-label
 * distribution and the training-label distribution. Pure arithmetic on two messages, so workflow
 * code runs it.
 */
final class DriftCheck {
  /**
   * A feature whose training variance is below this fraction of the mean training variance is
   * nearly constant (an image's border pixels): dividing by its tiny standard deviation would let
   * one such feature outweigh all others, so mean_shift leaves it out and says how many it
   * compared.
   */
  static final double NEAR_CONSTANT = 0.01;

  /**
   * An empty label bin counts as this probability in PSI, whose log is undefined at 0 (the usual
   * smoothing).
   */
  static final double PSI_EPSILON = 1e-4;

  private DriftCheck() {}

  /**
   * The report of {@code run} against {@code reference} under {@code config} (defaults filled in).
   */
  static DriftReport report(InputStatistics run, InputStatistics reference, DriftConfig config) {
    DriftReport.Builder r =
        DriftReport.newBuilder()
            .setMeasure(config.getMeasure())
            .setThreshold(config.getThreshold())
            .setReference(config.getReference())
            .setReferenceSplit(config.getReferenceSplit())
            .setReferenceRows(reference.getRows());
    if (run.getRows() > 0 && reference.getRows() > 0) {
      meanShift(run, reference, config.getTopFeatures(), r);
      double[] p = distribution(run.getPredictedLabelCountsList(), run.getRows());
      double[] q = distribution(reference.getPredictedLabelCountsList(), reference.getRows());
      r.setTotalVariation(totalVariation(p, q)).setPsi(psi(p, q));
    }
    double score =
        switch (config.getMeasure()) {
          case DriftConfigRules.TOTAL_VARIATION -> r.getTotalVariation();
          case DriftConfigRules.PSI -> r.getPsi();
          default -> r.getMeanShift();
        };
    return r.setScore(score).setDrifted(score > config.getThreshold()).build();
  }

  private static void meanShift(
      InputStatistics run, InputStatistics reference, int top, DriftReport.Builder r) {
    int d = Math.min(run.getMeanCount(), reference.getMeanCount());
    double meanVariance = 0;
    for (int j = 0; j < d; j++) {
      meanVariance += reference.getVariance(j);
    }
    meanVariance = d == 0 ? 0 : meanVariance / d;
    List<FeatureShift> shifts = new ArrayList<>();
    double sum = 0;
    for (int j = 0; j < d; j++) {
      double variance = reference.getVariance(j);
      if (variance <= 0 || variance < NEAR_CONSTANT * meanVariance) {
        continue;
      }
      double shift = Math.abs(run.getMean(j) - reference.getMean(j)) / Math.sqrt(variance);
      sum += shift;
      shifts.add(
          FeatureShift.newBuilder()
              .setFeature(j)
              .setReferenceMean(reference.getMean(j))
              .setMean(run.getMean(j))
              .setShift(shift)
              .build());
    }
    r.setFeaturesCompared(shifts.size()).setMeanShift(shifts.isEmpty() ? 0 : sum / shifts.size());
    shifts.stream()
        .sorted(
            Comparator.comparingDouble(FeatureShift::getShift)
                .reversed()
                .thenComparingInt(FeatureShift::getFeature))
        .limit(top)
        .forEach(r::addTopFeatures);
  }

  /**
   * Counts as probabilities; labels missing from one side are zeros (the longer list sets the
   * length).
   */
  private static double[] distribution(List<Long> counts, long rows) {
    double[] p = new double[counts.size()];
    for (int k = 0; k < p.length; k++) {
      p[k] = (double) counts.get(k) / rows;
    }
    return p;
  }

  static double totalVariation(double[] p, double[] q) {
    double sum = 0;
    for (int k = 0; k < Math.max(p.length, q.length); k++) {
      sum += Math.abs(at(p, k) - at(q, k));
    }
    return sum / 2;
  }

  static double psi(double[] p, double[] q) {
    double sum = 0;
    for (int k = 0; k < Math.max(p.length, q.length); k++) {
      double a = Math.max(at(p, k), PSI_EPSILON);
      double b = Math.max(at(q, k), PSI_EPSILON);
      sum += (a - b) * Math.log(a / b);
    }
    return sum;
  }

  private static double at(double[] p, int k) {
    return k < p.length ? p[k] : 0;
  }
}
