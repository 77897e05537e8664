package dev.keel.activities.etl;

import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Turns a raw data source into a new version of a Delta table. Runs on {@code keel-etl}. */
@ActivityInterface
public interface IngestActivities {

  /**
   * Appends the source to the table as one atomic commit. Idempotent: a source whose checksum is
   * already in the table writes nothing and returns the table's current version.
   */
  @ActivityMethod(name = "Ingest")
  IngestResult ingest(IngestRequest request);
}
