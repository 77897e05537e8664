package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.Task;
import dev.keel.etl.testing.ParquetFiles;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledExamples;
import io.delta.kernel.types.FloatType;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code source.task: regression}: a CSV's (or Parquet's) numeric label becomes a float label
 * column (no classes, the table's task property says regression) that the dataset reader hands over
 * as values; a label that is no number refuses the source naming the column and the record; a
 * classification table takes no regression append.
 */
class ARegressionSourceWritesItsLabelAsAFloatTest {
  Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "regression", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
  }

  private static IngestRequest request(Path csv, String table, Task task) {
    return IngestRequest.newBuilder()
        .setSource(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri(csv.toString())
                .setLabelColumn("price")
                .setTask(task))
        .setTableUri(table)
        .build();
  }

  @Test
  void theLabelIsWrittenAsAFloatAndReadBackAsValues() throws Exception {
    Path csv = root.resolve("houses.csv");
    Files.write(
        csv,
        List.of(
            "rooms,area,price,split",
            "3,70.5,250.25,train",
            "2,40,-1.5,train",
            "4,120,400,test",
            "1,20,1e2,train"));
    String table = root.resolve("t").toString();
    IngestResult r = new IngestActivitiesImpl().ingest(request(csv, table, Task.regression));
    assertEquals(Map.of("train", 3L, "test", 1L), r.getRowsPerSplitMap());
    assertTrue(r.getRowsPerLabelMap().isEmpty(), "values are no classes");

    var snapshot = DeltaTables.snapshotAt(DeltaTables.defaultEngine(), table, 0);
    assertTrue(snapshot.getSchema().get("label").getDataType() instanceof FloatType);
    Map<String, String> props = snapshot.getTableProperties();
    assertEquals("regression", props.get(TableSchemas.TASK_PROPERTY));
    assertEquals("rooms,area", props.get(TableSchemas.FEATURE_NAMES_PROPERTY));
    assertTrue(!props.containsKey(TableSchemas.CLASS_NAMES_PROPERTY));

    TableRef ref = TableRef.newBuilder().setUri(table).setVersion(0).build();
    LabeledExamples train = new DeltaDatasetReader().readExamples(ref, "train");
    assertEquals(3, train.size());
    float[] values = train.values();
    assertEquals(250.25f, values[0]);
    assertEquals(-1.5f, values[1]);
    assertEquals(100f, values[2]);
    assertEquals(List.of(), train.classNames());
    LabeledExamples test = new DeltaDatasetReader().readExamples(ref, "test");
    assertEquals(400f, test.values()[0]);
    assertEquals(100f, train.select(new int[] {2, 0}).values()[0]);
    assertEquals(-1.5f, train.slice(1, 3).values()[0]);
  }

  @Test
  void aLabelThatIsNoNumberRefusesTheSourceNamingTheColumnAndTheRecord() throws Exception {
    Path csv = root.resolve("houses.csv");
    Files.write(csv, List.of("rooms,area,price", "3,70.5,250", "2,40,cheap", "4,120,expensive"));
    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(csv, root.resolve("t").toString(), Task.regression)));
    assertEquals(
        "source.task regression: label column 'price' is not a number at houses.csv:3"
            + " (a regression label is a number)",
        e.getOriginalMessage());
    assertTrue(!Files.exists(root.resolve("t")), "nothing is written");
  }

  @Test
  void aClassificationTableTakesNoRegressionAppend() throws Exception {
    Path csv = root.resolve("houses.csv");
    Files.write(csv, List.of("rooms,area,price", "3,70.5,250", "2,40,100"));
    String table = root.resolve("t").toString();
    new IngestActivitiesImpl().ingest(request(csv, table, Task.classification));
    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () -> new IngestActivitiesImpl().ingest(request(csv, table, Task.regression)));
    assertTrue(
        e.getOriginalMessage().contains("its task is classification, the source's regression"),
        e.getOriginalMessage());
  }

  @Test
  void aParquetSourcesTextLabelsAreReadAsNumbersOrRefused() throws Exception {
    Path file = root.resolve("pq/data.parquet");
    ParquetFiles.write(
        file,
        0,
        30,
        i -> i % 3 == 0 ? "test" : "train",
        i -> String.valueOf(i * 0.5).getBytes(StandardCharsets.UTF_8));
    String table = root.resolve("t").toString();
    IngestRequest request =
        IngestRequest.newBuilder()
            .setSource(
                DataSource.newBuilder()
                    .setFormat(DataSource.Format.parquet)
                    .setUri(file.toUri().toString())
                    .setLabelColumn("label")
                    .setTask(Task.regression))
            .setTableUri(table)
            .build();
    IngestResult r = new IngestActivitiesImpl().ingest(request);
    assertEquals(Map.of("train", 20L, "test", 10L), r.getRowsPerSplitMap());
    LabeledExamples train =
        new DeltaDatasetReader()
            .readExamples(TableRef.newBuilder().setUri(table).setVersion(0).build(), "train");
    assertEquals(0.5f, train.values()[0], "row 1");
    assertEquals(14.5f, train.values()[19], "row 29");

    Path names = root.resolve("pq2/data.parquet");
    ParquetFiles.write(names, 0, 10, i -> "train", java.util.Set.of());
    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(
                        request.toBuilder()
                            .setSource(request.getSource().toBuilder().setUri(names.toString()))
                            .setTableUri(root.resolve("t2").toString())
                            .build()));
    assertTrue(
        e.getOriginalMessage()
            .startsWith(
                "source.task regression: label column 'label' is not a number at data.parquet:1"),
        e.getOriginalMessage());
  }
}
