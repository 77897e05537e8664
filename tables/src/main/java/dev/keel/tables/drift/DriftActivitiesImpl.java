package dev.keel.tables.drift;

import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.drift.DriftActivities;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.ReferenceStatisticsRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import io.temporal.failure.ApplicationFailure;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DriftActivities} over a {@link DriftTable}: a split's statistics are read from the table
 * when a run computed them before, else computed from the split's rows and recorded. A reference
 * that does not exist or has no rows is refused non-retryably, naming the table, version and split.
 */
public final class DriftActivitiesImpl implements DriftActivities {
  private static final Logger log = LoggerFactory.getLogger(DriftActivitiesImpl.class);

  private final StorageRoot storage;
  private final DriftTable table;
  private final DatasetReader reader;

  public DriftActivitiesImpl(StorageRoot storage, DriftTable table, DatasetReader reader) {
    this.storage = storage;
    this.table = table;
    this.reader = reader;
  }

  @Override
  public InputStatistics referenceStatistics(ReferenceStatisticsRequest request) {
    return ActivityBoundary.call(
        () -> {
          TableRef ref =
              request.getTable().toBuilder()
                  .setUri(storage.table(request.getTable().getUri()))
                  .build();
          String split = request.getSplit().isEmpty() ? Splits.TRAIN : request.getSplit();
          String what = "the " + split + " split of " + ref.getUri() + " v" + ref.getVersion();
          try {
            Optional<InputStatistics> recorded = table.reference(ref, split);
            if (recorded.isPresent()) {
              log.info("reference statistics of {} read from {}", what, table.tableUri());
              return recorded.get();
            }
            LabeledExamples examples = reader.readExamples(ref, split);
            if (examples.size() == 0) {
              throw invalid("drift.reference: " + what + " has no rows");
            }
            InputStatistics statistics = ReferenceStatistics.of(examples);
            table.recordReference(ref, split, statistics);
            log.info(
                "reference statistics of {} computed from {} rows and recorded in {}",
                what,
                examples.size(),
                table.tableUri());
            return statistics;
          } catch (IllegalArgumentException e) {
            throw invalid("drift.reference: " + e.getMessage());
          } catch (ApplicationFailure e) {
            throw e;
          } catch (RuntimeException e) {
            throw StorageFailures.translate(table.tableUri(), e);
          }
        });
  }

  @Override
  public void record(DriftRecord record) {
    ActivityBoundary.run(
        () -> {
          try {
            table.record(record);
          } catch (IllegalArgumentException e) {
            throw ApplicationFailure.newNonRetryableFailure(
                "drift record: " + e.getMessage(), FailureTypes.INVALID_ARGUMENT);
          } catch (RuntimeException e) {
            throw StorageFailures.translate(table.tableUri(), e);
          }
        });
  }

  private static ApplicationFailure invalid(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, FailureTypes.INVALID_TABLE);
  }
}
