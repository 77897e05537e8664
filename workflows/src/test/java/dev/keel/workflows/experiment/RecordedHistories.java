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
 */
public final class RecordedHistories {
  public static final Path DIR = Path.of("src/test/resources/histories");

  private RecordedHistories() {}

  public static void save(WorkflowClient client, String workflowId, String name) {
    if (!Boolean.getBoolean("keel.recordHistories")) {
      return;
    }
    try {
      Files.createDirectories(DIR);
      Files.writeString(DIR.resolve(name + ".json"), client.fetchHistory(workflowId).toJson(true));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
