package dev.keel.etl;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.v1.DataSource;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What to do with a corrupt record ({@code on_bad_record}): {@code fail} ends the ingest at the
 * first one with a non-retryable {@value FailureTypes#DATASET_CORRUPT} naming the file and record;
 * {@code skip} counts it, logs it and keeps the first {@value #EXAMPLES} for the result. Either way
 * nothing is committed before every record was read, so a failure leaves no version.
 */
public final class BadRecords {
  private static final Logger log = LoggerFactory.getLogger(BadRecords.class);
  static final int EXAMPLES = 10;

  private final boolean skip;
  private final String source;
  private long count;
  private final List<String> examples = new ArrayList<>();

  public BadRecords(DataSource.OnBadRecord onBadRecord, String source) {
    this.skip = onBadRecord == DataSource.OnBadRecord.skip;
    this.source = source;
  }

  /** The source's choice; {@code fail} when unset. */
  public static DataSource.OnBadRecord policy(DataSource source) {
    return source.getOnBadRecord() == DataSource.OnBadRecord.ON_BAD_RECORD_UNSPECIFIED
        ? DataSource.OnBadRecord.fail
        : source.getOnBadRecord();
  }

  /**
   * Reports one corrupt record.
   *
   * @param where file and record, e.g. {@code data.csv:17} or {@code cat/3.png}
   * @throws KeelFailure when the mode is {@code fail}
   */
  public void report(String where, String reason) {
    report(where, reason, 1);
  }

  /** Reports {@code records} lost at once (e.g. the rest of a truncated file). */
  public void report(String where, String reason, long records) {
    String line = where + ": " + reason;
    if (!skip) {
      throw KeelFailure.nonRetryable(
          "corrupt record in "
              + source
              + " at "
              + line
              + " (on_bad_record: fail; nothing was written)",
          FailureTypes.DATASET_CORRUPT);
    }
    count += records;
    if (examples.size() < EXAMPLES) {
      examples.add(line);
    }
    log.warn("skipping corrupt record in {} at {}", source, line);
  }

  public long count() {
    return count;
  }

  public List<String> examples() {
    return List.copyOf(examples);
  }
}
