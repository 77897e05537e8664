package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@code keel experiment wait}'s line says how many trials wait for slots of which pool: on a
 * terminal for how long, in a log since when (so a waiting experiment does not print a line a
 * second). The view's fields are those ATrialWaitingForSlotsSaysWhyAndSinceWhenTest reads from a
 * real waiting trial.
 */
class ExperimentProgressNamesTrialsWaitingForSlotsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode view(Instant since) throws Exception {
    return JSON.readTree(
        """
        {"experiment": {"state": "ACTIVE", "progress": 0, "resource_pool": "gpu", "waiting_trials": 2, "planned_trials": 2,
                        "unit": "batches"},
         "trials": [{"trial_id": 1, "state": "ACTIVE", "waiting": "waiting for 2 slots of pool gpu (0 of 2 ranks started)",
                     "waiting_since": "%s"},
                    {"trial_id": 2, "state": "ACTIVE", "waiting": "waiting for 2 slots of pool gpu (1 of 2 ranks started)",
                     "waiting_since": "%s"}]}
        """
            .formatted(since, since.plusSeconds(30)));
  }

  @Test
  void aLogLineSaysSinceWhenAndIsNotRepeated() throws Exception {
    Instant since = Instant.parse("2026-11-27T10:02:03Z");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExperimentProgress progress =
        new ExperimentProgress(new PrintStream(out, true, StandardCharsets.UTF_8), false);
    progress.show(view(since));
    progress.show(view(since));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(
        printed.contains("2 waiting for slots of pool gpu since 2026-11-27T10:02:03Z"), printed);
    assertEquals(1, printed.lines().count(), printed);
  }

  @Test
  void aTerminalLineSaysForHowLong() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new ExperimentProgress(new PrintStream(out, true, StandardCharsets.UTF_8), true)
        .show(view(Instant.now().minusSeconds(130)));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("2 waiting for slots of pool gpu for 2m1"), printed);
  }
}
