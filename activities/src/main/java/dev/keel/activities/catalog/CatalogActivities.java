package dev.keel.activities.catalog;

import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogAppendResult;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Keel's own records, kept as Delta tables under {@code <storage root>/_keel/} so experiment
 * history outlives workflow retention and any Delta reader can query it. Light work: runs on {@code
 * keel-control}.
 */
@ActivityInterface
public interface CatalogActivities {

  /** Pins a data table version (the latest when none is given) and counts its rows per split. */
  @ActivityMethod(name = "DescribeTable")
  DescribeTableResult describeTable(DescribeTableRequest request);

  /**
   * Appends rows to the catalog tables ({@code experiments}, {@code trials}, {@code metrics},
   * {@code checkpoints}) as one commit per table. Idempotent per (experiment, sequence).
   */
  /**
   * A finished experiment as the catalog recorded it, with its best checkpoint that is still saved.
   * An experiment the catalog does not hold, one still running, or one without a saved validated
   * checkpoint is a non-retryable failure naming it.
   */
  @ActivityMethod(name = "ExperimentRecord")
  ExperimentRecord experimentRecord(ExperimentRecordRequest request);

  @ActivityMethod(name = "AppendCatalog")
  CatalogAppendResult append(CatalogAppend batch);
}
