package dev.keel.etl.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.SourceCheck;
import dev.keel.etl.testing.RealData;
import dev.keel.etl.testing.TableRows;
import dev.keel.storage.testing.S3ProxyExtension;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * CSV files and an image folder under s3:// prefixes (embedded S3Proxy), ingested into local
 * tables.
 */
@ExtendWith(S3ProxyExtension.class)
class SourcesOnS3AreIngestedLikeLocalOnesTest {
  final Path root = Path.of("target", "s3-sources", UUID.randomUUID().toString()).toAbsolutePath();

  static void put(String bucket, String key, byte[] bytes) {
    S3ProxyExtension.client()
        .putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
  }

  @Test
  void aCsvPrefixIsReadWithEveryFile() throws Exception {
    String bucket = S3ProxyExtension.newBucket("src");
    for (int part = 0; part < 2; part++) {
      List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
      for (int i = part * 30; i < (part + 1) * 30; i++) {
        lines.add(RealData.csvLine(i, i % 3 == 0 ? "test" : "train"));
      }
      put(
          bucket,
          "raw/rows/part-" + part + ".csv",
          String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
    }
    put(bucket, "raw/rows/_SUCCESS", new byte[0]);
    put(
        bucket,
        "raw/rowsX/other.csv",
        "not,this\n1,2".getBytes(StandardCharsets.UTF_8)); // same key prefix, another folder
    String table = root.resolve("csv").toString();
    DataSource source =
        DataSource.newBuilder()
            .setFormat(DataSource.Format.csv)
            .setUri("s3://" + bucket + "/raw/rows")
            .setLabelColumn("label")
            .build();
    assertEquals(List.of(), SourceCheck.problems(source));
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(IngestRequest.newBuilder().setSource(source).setTableUri(table).build());
    assertEquals(60, r.getRows());
    assertEquals(Map.of("train", 40L, "test", 20L), r.getRowsPerSplitMap());
    List<TableRows.Row> rows = TableRows.read(table, 0);
    for (TableRows.Row row : rows) {
      assertArrayEquals(RealData.features((int) row.id()), row.features(), 1e-6f);
    }
  }

  @Test
  void anImageFolderOnS3KeepsItsPixels() throws Exception {
    String bucket = S3ProxyExtension.newBucket("img");
    Path local = root.resolve("png");
    for (int i = 0; i < 20; i++) {
      String rel =
          (i < 15 ? "train/" : "test/") + RealData.className(RealData.label(i)) + "/" + i + ".png";
      RealData.write(i, local.resolve(rel));
      put(bucket, "images/" + rel, Files.readAllBytes(local.resolve(rel)));
    }
    String table = root.resolve("img").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(
                IngestRequest.newBuilder()
                    .setSource(
                        DataSource.newBuilder()
                            .setFormat(DataSource.Format.image_folder)
                            .setUri("s3://" + bucket + "/images/"))
                    .setTableUri(table)
                    .build());
    assertEquals(Map.of("train", 15L, "test", 5L), r.getRowsPerSplitMap());
    // the same folder read locally has the same checksum: it is over relative paths and bytes
    IngestResult localRun =
        new IngestActivitiesImpl()
            .ingest(
                IngestRequest.newBuilder()
                    .setSource(
                        DataSource.newBuilder()
                            .setFormat(DataSource.Format.image_folder)
                            .setUri(local.toString()))
                    .setTableUri(root.resolve("img2").toString())
                    .build());
    assertEquals(localRun.getSourceChecksum(), r.getSourceChecksum());
    assertEquals(
        TableRows.read(root.resolve("img2").toString(), 0).stream()
            .map(x -> List.of(x.label(), x.split()))
            .toList(),
        TableRows.read(table, 0).stream().map(x -> List.of(x.label(), x.split())).toList());
  }

  @Test
  void aMissingS3PrefixIsRefusedAtSubmissionAndByTheActivity() {
    String bucket = S3ProxyExtension.newBucket("none");
    String uri = "s3://" + bucket + "/no/such/prefix";
    DataSource source =
        DataSource.newBuilder()
            .setFormat(DataSource.Format.csv)
            .setUri(uri)
            .setLabelColumn("label")
            .build();
    assertEquals(
        List.of(
            new ConfigProblem("source.uri", uri + " does not exist (no S3 object at or under it)")),
        SourceCheck.problems(source));
    ApplicationFailure f =
        Assertions.assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(
                        IngestRequest.newBuilder()
                            .setSource(source)
                            .setTableUri(root.resolve("x").toString())
                            .build()));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.DATASET_MISSING, f.getType());
    assertEquals("source.uri " + uri + " does not exist", f.getOriginalMessage());
  }
}
