package dev.keel.tables.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.CatalogAppendResult;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.testing.KernelRows;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The catalog on an s3:// root (embedded S3Proxy on 127.0.0.1). */
@ExtendWith(S3ProxyExtension.class)
class CatalogOnS3Test {

  @Test
  void catalogTablesLiveUnderKeelInTheBucketAndARetriedBatchWritesNothing() throws Exception {
    String bucket = S3ProxyExtension.newBucket("catalog");
    CatalogActivitiesImpl catalog =
        new CatalogActivitiesImpl(StorageRoot.of("s3://" + bucket + "/keel"));

    CatalogAppendResult first =
        catalog.append(
            CatalogActivitiesImplTest.batch(
                "exp-s3", 1, CatalogActivitiesImplTest.sampleRows("exp-s3")));
    assertFalse(first.getAlreadyCommitted());
    CatalogAppendResult again =
        catalog.append(
            CatalogActivitiesImplTest.batch(
                "exp-s3", 1, CatalogActivitiesImplTest.sampleRows("exp-s3")));
    assertTrue(again.getAlreadyCommitted());
    assertEquals(first.getVersionsMap(), again.getVersionsMap());

    List<String> keys =
        S3ProxyExtension.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
            .map(S3Object::key)
            .collect(Collectors.toList());
    for (String t : CatalogTables.NAMES) {
      assertTrue(
          keys.contains("keel/_keel/" + t + "/_delta_log/00000000000000000000.json"),
          keys.toString());
      assertFalse(
          keys.contains("keel/_keel/" + t + "/_delta_log/00000000000000000001.json"),
          keys.toString());
    }
    assertEquals("s3://" + bucket + "/keel/_keel/metrics", catalog.tableUri("metrics"));
    List<Map<String, Object>> metrics = KernelRows.read(catalog.tableUri("metrics"));
    assertEquals(2, metrics.size());
    assertEquals(
        Instant.ofEpochMilli(CatalogActivitiesImplTest.T0 + 3), metrics.get(0).get("time"));
    assertEquals(2, KernelRows.read(catalog.tableUri("checkpoints")).size());
  }

  @Test
  void describeTablePinsVersionsOfAnS3TableAndNamesMissingOnes() {
    String bucket = S3ProxyExtension.newBucket("describe");
    String root = "s3://" + bucket + "/keel";
    CatalogActivitiesImpl catalog = new CatalogActivitiesImpl(StorageRoot.of(root));
    DeltaTableWriter w =
        new DeltaTableWriter(
            root + "/tables/images",
            TableSchemas.LABELED_IMAGES,
            Map.of(TableSchemas.IMAGE_SHAPE_PROPERTY, "2x2"));
    w.append(DescribeTableTest.images(0, "train", "train", "test"));
    w.append(DescribeTableTest.images(3, "test"));

    DescribeTableResult latest =
        catalog.describeTable(DescribeTableRequest.newBuilder().setTable("images").build());
    assertEquals(root + "/tables/images", latest.getTable().getUri());
    assertEquals(1, latest.getTable().getVersion());
    assertEquals(Map.of("train", 2L, "test", 2L), latest.getRowsPerSplitMap());
    DescribeTableResult v0 =
        catalog.describeTable(
            DescribeTableRequest.newBuilder().setTable("images").setVersion(0).build());
    assertEquals(Map.of("train", 2L, "test", 1L), v0.getRowsPerSplitMap());

    ApplicationFailure noVersion =
        assertThrows(
            ApplicationFailure.class,
            () ->
                catalog.describeTable(
                    DescribeTableRequest.newBuilder().setTable("images").setVersion(9).build()));
    assertEquals(
        "table " + root + "/tables/images has no version 9 (latest is 1)",
        noVersion.getOriginalMessage());
    ApplicationFailure noTable =
        assertThrows(
            ApplicationFailure.class,
            () ->
                catalog.describeTable(
                    DescribeTableRequest.newBuilder().setTable("fashion").build()));
    assertTrue(noTable.isNonRetryable());
    assertEquals(
        "table " + root + "/tables/fashion does not exist — run the ETL stage first",
        noTable.getOriginalMessage());
  }
}
