package dev.keel.workflows.experiment;

import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Histories of real runs, committed under {@code src/test/resources/histories/} and replayed by
 * {@link RecordedHistoriesReplayTest} so that a non-deterministic change to workflow code fails the
 * build. Re-record deliberately (after an intended, versioned change) with {@code ./mvnw -pl
 * workflows test -Dkeel.recordHistories=true}.
 *
 * <p>A file is named after the workflow id it replays under, which matters where the code derives
 * ids from its own (an experiment names its trials after it). Several runs of one workflow, such as
 * those of a continue-as-new chain, add {@code ~<which run>}.
 */
public final class RecordedHistories {
  public static final Path DIR = Path.of("src/test/resources/histories");

  private RecordedHistories() {}

  /** The workflow id a recorded history replays under: its file name without the run suffix. */
  static String workflowId(Path file) {
    String name = file.getFileName().toString().replace(".json", "");
    int run = name.indexOf('~');
    return run < 0 ? name : name.substring(0, run);
  }

  /** The workflow's latest run. */
  public static void save(WorkflowClient client, String workflowId, String name) {
    save(client, workflowId, null, name);
  }

  /**
   * The run {@code runId} of the workflow, e.g. the first of a chain of continue-as-new runs; null:
   * the latest.
   */
  public static void save(WorkflowClient client, String workflowId, String runId, String name) {
    if (!Boolean.getBoolean("keel.recordHistories")) {
      return;
    }
    try {
      Files.createDirectories(DIR);
      Files.writeString(
          DIR.resolve(name + ".json"), client.fetchHistory(workflowId, runId).toJson(true));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
