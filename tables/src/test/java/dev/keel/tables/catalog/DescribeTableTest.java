package dev.keel.tables.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** describeTable pins a version of a data table and counts its rows per split. */
class DescribeTableTest {
  Path root;
  CatalogActivitiesImpl catalog;
  String tableUri;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "describe", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
    catalog = new CatalogActivitiesImpl(StorageRoot.of(root.toString()));
    tableUri = root.resolve("tables/images").toUri().toString();
  }

  static Columns images(long firstId, String... splits) {
    int n = splits.length;
    long[] ids = new long[n];
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = firstId + i;
      labels[i] = i % 10;
    }
    return Columns.of(n)
        .add("id", ids)
        .add("label", labels)
        .add("split", splits)
        .addFixedBinary("image", new byte[n * 4], 4);
  }

  /** v0: 3 train + 2 test; v1: one more train row. */
  void twoVersions() {
    DeltaTableWriter w =
        new DeltaTableWriter(
            tableUri,
            TableSchemas.LABELED_IMAGES,
            Map.of(TableSchemas.IMAGE_SHAPE_PROPERTY, "2x2"));
    w.append(images(0, "train", "train", "train"), images(3, "test", "test"));
    w.append(images(5, "train"));
  }

  static DescribeTableRequest request(String table) {
    return DescribeTableRequest.newBuilder().setTable(table).build();
  }

  @Test
  void withoutAVersionThePinIsTheLatest() {
    twoVersions();
    DescribeTableResult r = catalog.describeTable(request("images"));
    assertEquals(
        tableUri,
        r.getTable().getUri(),
        "a name resolves to tables/<name> under the root, one spelling");
    assertEquals(1, r.getTable().getVersion());
    assertEquals(Map.of("train", 4L, "test", 2L), r.getRowsPerSplitMap());
  }

  @Test
  void anExplicitVersionIsPinnedAndCountedAsOfThen() {
    twoVersions();
    DescribeTableResult r =
        catalog.describeTable(request(tableUri).toBuilder().setVersion(0).build());
    assertEquals(0, r.getTable().getVersion());
    assertEquals(Map.of("train", 3L, "test", 2L), r.getRowsPerSplitMap());
  }

  @Test
  void aMissingVersionFailsWithoutRetriesNamingTableAndLatest() {
    twoVersions();
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () -> catalog.describeTable(request("images").toBuilder().setVersion(5).build()));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.INVALID_TABLE, f.getType());
    assertEquals("table " + tableUri + " has no version 5 (latest is 1)", f.getOriginalMessage());
  }

  @Test
  void aMissingTableFailsWithoutRetriesAndSaysToRunTheEtlStage() {
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> catalog.describeTable(request("nope")));
    assertTrue(f.isNonRetryable());
    assertEquals(FailureTypes.INVALID_TABLE, f.getType());
    assertEquals(
        "table "
            + root.resolve("tables/nope").toUri()
            + " does not exist — run the ETL stage first",
        f.getOriginalMessage());
  }

  @Test
  void aTableWithoutASplitColumnCountsAllRows() {
    catalog.append(
        CatalogActivitiesImplTest.batch("e", 1, CatalogActivitiesImplTest.sampleRows("e")));
    DescribeTableResult r = catalog.describeTable(request(catalog.tableUri("metrics")));
    assertEquals(Map.of("all", 2L), r.getRowsPerSplitMap());
  }
}
