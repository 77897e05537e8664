package dev.keel.service.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.dev.DevStack.Backend;
import dev.keel.service.schedule.PipelineSchedules;
import dev.keel.storage.StorageRoot;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How `keel dev` picks its Temporal server, finds the CLI and places its database. */
class TemporalBackendChoiceTest {
  @TempDir Path tmp;

  @Test
  void autoPicksTheCliServerOnlyWhenABinaryIsFound() {
    assertEquals(Backend.CLI, Backend.choose(null, Optional.of(Path.of("/x/temporal"))));
    assertEquals(Backend.EMBEDDED, Backend.choose(null, Optional.empty()));
    assertEquals(Backend.EMBEDDED, Backend.choose("embedded", Optional.of(Path.of("/x/temporal"))));
    assertEquals(Backend.CLI, Backend.choose("CLI", Optional.empty()));
    assertEquals(Backend.REMOTE, Backend.choose("temporal.internal:7233", Optional.empty()));
  }

  @Test
  void locatesTheBinaryInKeelHomeToolsBeforeThePath() throws Exception {
    Path home = tmp.resolve("home");
    Path onPath = tmp.resolve("bin");
    Path tools = Files.createDirectories(home.resolve(".tools")).resolve("temporal");
    Path other = Files.createDirectories(onPath).resolve("temporal");
    for (Path p : new Path[] {tools, other}) {
      Files.writeString(p, "#!/bin/sh\n");
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    assertEquals(
        Optional.of(tools),
        TemporalCliServer.locate(Map.of("KEEL_HOME", home.toString(), "PATH", onPath.toString())));
    assertEquals(Optional.of(other), TemporalCliServer.locate(Map.of("PATH", onPath.toString())));
    assertEquals(
        Optional.empty(),
        TemporalCliServer.locate(
            Map.of(
                "KEEL_TEMPORAL_CLI",
                tmp.resolve("missing").toString(),
                "PATH",
                onPath.toString())));
  }

  @Test
  void theDatabaseLivesUnderALocalStorageRootAndLocallyForS3() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
    assertEquals(
        tmp.resolve("data/temporal/dev.db").toAbsolutePath(),
        DevStack.databaseFile(StorageRoot.of(tmp.resolve("data").toString()), quiet));
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    Path db =
        DevStack.databaseFile(
            StorageRoot.of("s3://bucket/prefix"),
            new PrintStream(said, true, StandardCharsets.UTF_8));
    assertTrue(db.endsWith(Path.of("keel-data/temporal/dev.db")), db.toString());
    String text = said.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("not local"), text);
  }

  @Test
  void overlapPoliciesReadAsTheyAreWritten() {
    assertEquals(
        ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE,
        PipelineSchedules.overlap("buffer-one"));
    assertEquals(
        ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP, PipelineSchedules.overlap("skip"));
    assertThrows(IllegalArgumentException.class, () -> PipelineSchedules.overlap("sometimes"));
  }
}
