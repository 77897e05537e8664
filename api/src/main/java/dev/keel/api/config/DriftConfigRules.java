package dev.keel.api.config;

import dev.keel.api.v1.DriftConfig;
import java.util.List;

/**
 * The rules of a drift block ({@code inference.drift} of a pipeline, {@code drift} of an inference
 * request) and its defaults. Shared by the submission check and the Inference workflow's own input
 * check, so a run started by any client refuses the same mistakes with the same field paths.
 */
public final class DriftConfigRules {
  /** Mean over features of |run mean - training mean| / training standard deviation. */
  public static final String MEAN_SHIFT = "mean_shift";

  /** Half the L1 distance between the predicted-label and the training-label distribution. */
  public static final String TOTAL_VARIATION = "total_variation";

  /** Population stability index between the same two distributions. */
  public static final String PSI = "psi";

  public static final List<String> MEASURES = List.of(MEAN_SHIFT, TOTAL_VARIATION, PSI);
  public static final String DEFAULT_REFERENCE_SPLIT = Splits.TRAIN;
  public static final int DEFAULT_TOP_FEATURES = 5;
  static final int MAX_TOP_FEATURES = 100;

  /** Schedule ids are checked by the server; this only refuses what it could never accept. */
  private static final String SCHEDULE_ID = "[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}";

  private DriftConfigRules() {}

  /** Every problem of {@code drift}, each under {@code path} (e.g. {@code inference.drift}). */
  public static List<ConfigProblem> validate(DriftConfig drift, String path) {
    Problems problems = new Problems();
    validate(drift, path, problems);
    return problems.list();
  }

  static void validate(DriftConfig drift, String path, Problems problems) {
    if (!(drift.getThreshold() > 0) || Double.isInfinite(drift.getThreshold())) {
      problems.add(
          Problems.at(path, "threshold"),
          "must be a number > 0 (the score past which a run is marked drifted), got "
              + drift.getThreshold());
    }
    if (!drift.getMeasure().isEmpty() && !MEASURES.contains(drift.getMeasure())) {
      problems.add(
          Problems.at(path, "measure"),
          "unknown measure '"
              + drift.getMeasure()
              + "' (expected "
              + String.join("|", MEASURES)
              + ")");
    }
    if (drift.hasReference()) {
      if (drift.getReference().getUri().isBlank()) {
        problems.add(
            Problems.at(path, "reference.uri"),
            "required when reference is set (the training table)");
      }
      if (drift.getReference().getVersion() < 0) {
        problems.add(
            Problems.at(path, "reference.version"),
            "must be >= 0, got " + drift.getReference().getVersion());
      }
    }
    if (drift.getTopFeatures() < 0 || drift.getTopFeatures() > MAX_TOP_FEATURES) {
      problems.add(
          Problems.at(path, "top_features"),
          "must be 0.." + MAX_TOP_FEATURES + ", got " + drift.getTopFeatures());
    }
    if (drift.hasOnDrift()) {
      String schedule = drift.getOnDrift().getTriggerSchedule();
      String at = Problems.at(path, "on_drift.trigger_schedule");
      if (schedule.isBlank()) {
        problems.add(
            at,
            "required (the id of the Temporal Schedule to trigger when the run drifts, made with keel schedule create)");
      } else if (!schedule.matches(SCHEDULE_ID)) {
        problems.add(at, "'" + schedule + "' is not a schedule id (letters, digits, _.:/-)");
      }
    }
  }

  /**
   * The block with every default filled in: measure, reference split, number of listed features.
   */
  public static DriftConfig withDefaults(DriftConfig drift) {
    DriftConfig.Builder b = drift.toBuilder();
    if (b.getMeasure().isEmpty()) {
      b.setMeasure(MEAN_SHIFT);
    }
    if (b.getReferenceSplit().isEmpty()) {
      b.setReferenceSplit(DEFAULT_REFERENCE_SPLIT);
    }
    if (b.getTopFeatures() == 0) {
      b.setTopFeatures(DEFAULT_TOP_FEATURES);
    }
    return b.build();
  }
}
