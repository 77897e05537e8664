package dev.keel.activities.etl;

import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Turns a raw data source into a new version of a Delta table. Runs on {@code keel-etl}. */
@ActivityInterface
public interface IngestActivities {

  /**
   * Writes the source to the table as one atomic commit: appended, or with {@code mode: overwrite}
   * replacing the previous rows. Idempotent: when the table's latest version was written by the
   * same ingest (source checksum, mode and options), nothing is written and the result says {@code
   * already_ingested}. Corrupt records fail it (non-retryable {@code DatasetCorrupt}, naming file
   * and record) or are skipped and counted, per {@code on_bad_record}.
   */
  @ActivityMethod(name = "Ingest")
  IngestResult ingest(IngestRequest request);
}
