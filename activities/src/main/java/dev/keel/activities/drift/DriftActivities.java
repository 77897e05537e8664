package dev.keel.activities.drift;

import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.ReferenceStatisticsRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * What the {@code Inference} workflow's drift check needs from storage; on {@code keel-control}.
 */
@ActivityInterface
public interface DriftActivities {

  /**
   * The statistics of one split of a table version in the shape of a run's {@link InputStatistics}:
   * per-feature mean and population variance in raw units, and the TRUE-label histogram in {@code
   * predicted_label_counts}. Computed on first use and recorded in {@code _keel/drift}; later calls
   * for the same table version and split read the record.
   */
  @ActivityMethod(name = "ReferenceStatistics")
  InputStatistics referenceStatistics(ReferenceStatisticsRequest request);

  /**
   * Appends a run's drift report to {@code _keel/drift}; recording the same run again writes
   * nothing.
   */
  @ActivityMethod(name = "RecordDrift")
  void record(DriftRecord record);
}
