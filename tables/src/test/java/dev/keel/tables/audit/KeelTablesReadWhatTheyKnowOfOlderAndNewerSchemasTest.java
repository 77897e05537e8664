package dev.keel.tables.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code _keel} tables evolve by adding nullable columns, so one release reads tables that
 * older and newer ones wrote (shown on the audit table, read as every {@code _keel} table is): a
 * later release's extra columns, of types this release reads or not (a float array, bytes), are
 * ignored; a column an older release did not write reads as null.
 */
class KeelTablesReadWhatTheyKnowOfOlderAndNewerSchemasTest {
  private static final long MICROS = 1_700_000_000_000_000L;

  @TempDir Path dir;

  @Test
  void aLaterReleasesExtraColumnsAreIgnored() {
    StorageRoot storage = StorageRoot.of(dir.toUri().toString());
    AuditTable audit = new AuditTable(storage);
    StructType later =
        AuditTable.SCHEMA
            .add("client", StringType.STRING, true)
            .add("latency_ms", new ArrayType(FloatType.FLOAT, true), true)
            .add("signature", BinaryType.BINARY, true);
    new DeltaTableWriter(audit.tableUri(), later, Map.of())
        .append(
            Columns.of(1)
                .add("time", new long[] {MICROS})
                .add("who", new String[] {"ada"})
                .add("role", new String[] {"admin"})
                .add("action", new String[] {"POST /v1/pipelines"})
                .add("target", new String[] {"p-1"})
                .add("status", new int[] {201})
                .add("client", new String[] {"keel-cli 0.2"})
                .add("latency_ms", new float[][] {{1.5f, 2.5f}})
                .addFixedBinary("signature", new byte[] {1, 2, 3, 4}, 4));

    assertEquals(
        List.of(
            new AuditTable.Entry(
                Instant.ofEpochSecond(MICROS / 1_000_000),
                "ada",
                "admin",
                "POST /v1/pipelines",
                "p-1",
                201)),
        audit.read(Optional.empty()));
  }

  @Test
  void aColumnAnOlderReleaseDidNotWriteReadsAsNull() {
    StorageRoot storage = StorageRoot.of(dir.toUri().toString());
    AuditTable audit = new AuditTable(storage);
    StructType older =
        new StructType()
            .add("time", TimestampType.TIMESTAMP, false)
            .add("who", StringType.STRING, false)
            .add("role", StringType.STRING, false)
            .add("action", StringType.STRING, false)
            .add("status", IntegerType.INTEGER, false);
    new DeltaTableWriter(audit.tableUri(), older, Map.of())
        .append(
            Columns.of(1)
                .add("time", new long[] {MICROS})
                .add("who", new String[] {"ada"})
                .add("role", new String[] {"viewer"})
                .add("action", new String[] {"GET /v1/models"})
                .add("status", new int[] {200}));

    assertEquals(
        List.of(
            new AuditTable.Entry(
                Instant.ofEpochSecond(MICROS / 1_000_000),
                "ada",
                "viewer",
                "GET /v1/models",
                null,
                200)),
        audit.read(Optional.empty()));
  }
}
