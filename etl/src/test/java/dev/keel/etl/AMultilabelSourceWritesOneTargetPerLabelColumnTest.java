package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.Task;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledExamples;
import io.delta.kernel.types.ArrayType;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code source.task: multilabel} with {@code label_columns}: each row's label columns become one
 * float array label (the table's task property says multilabel, its class names are the label
 * columns), read back as {@code valueWidth} targets per row; the label columns are not features; a
 * missing label column, a value that is no yes/no target and an append with other label columns are
 * refused, naming the column (and the record), and nothing is written. A Parquet source's integer
 * and boolean label columns are read the same way.
 */
class AMultilabelSourceWritesOneTargetPerLabelColumnTest {
  Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "multilabel", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
  }

  private static IngestRequest request(Path csv, String table, String... labelColumns) {
    return IngestRequest.newBuilder()
        .setSource(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri(csv.toString())
                .setTask(Task.multilabel)
                .addAllLabelColumns(List.of(labelColumns)))
        .setTableUri(table)
        .build();
  }

  @Test
  void theLabelColumnsAreWrittenAsOneFloatArrayAndReadBackAsTargets() throws Exception {
    Path csv = root.resolve("movies.csv");
    Files.write(
        csv,
        List.of(
            "length,year,comedy,drama,split",
            "90,1999,1,0,train",
            "120,2005,0,1,train",
            "100,2010,true,false,test",
            "95,2020,0.75,1,train"));
    String table = root.resolve("t").toString();
    IngestResult r = new IngestActivitiesImpl().ingest(request(csv, table, "comedy", "drama"));
    assertEquals(Map.of("train", 3L, "test", 1L), r.getRowsPerSplitMap());
    assertEquals(Map.of("comedy", 3L, "drama", 2L), r.getRowsPerLabelMap(), "positives per label");

    var snapshot = DeltaTables.snapshotAt(DeltaTables.defaultEngine(), table, 0);
    assertTrue(snapshot.getSchema().get("label").getDataType() instanceof ArrayType);
    Map<String, String> props = snapshot.getTableProperties();
    assertEquals("multilabel", props.get(TableSchemas.TASK_PROPERTY));
    assertEquals("length,year", props.get(TableSchemas.FEATURE_NAMES_PROPERTY));
    assertEquals("comedy,drama", props.get(TableSchemas.CLASS_NAMES_PROPERTY));

    TableRef ref = TableRef.newBuilder().setUri(table).setVersion(0).build();
    LabeledExamples train = new DeltaDatasetReader().readExamples(ref, "train");
    assertTrue(train.multilabel());
    assertEquals(2, train.valueWidth());
    assertArrayEquals(new float[] {1, 0, 0, 1, 0.75f, 1}, train.values());
    assertArrayEquals(
        new float[] {90, 1999, 120, 2005, 95, 2020}, train.floats(new int[] {0, 1, 2}));
    assertEquals(List.of("comedy", "drama"), train.classNames());
    assertArrayEquals(new float[] {0.75f, 1, 1, 0}, train.select(new int[] {2, 0}).values());
    assertArrayEquals(new float[] {0, 1}, train.slice(1, 2).values());
    LabeledExamples test = new DeltaDatasetReader().readExamples(ref, "test");
    assertArrayEquals(new float[] {1, 0}, test.values());
  }

  @Test
  void aLabelColumnTheFileLacksIsRefusedNamingItAndTheFile() throws Exception {
    Path csv = root.resolve("movies.csv");
    Files.write(csv, List.of("length,year,comedy", "90,1999,1", "120,2005,0"));
    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(csv, root.resolve("t").toString(), "comedy", "drama")));
    assertEquals(
        "source.label_columns: 'drama' is not a column of movies.csv (its header row has 3"
            + " columns)",
        e.getOriginalMessage());
    assertFalse(Files.exists(root.resolve("t")), "nothing is written");
  }

  @Test
  void aValueThatIsNoYesNoTargetRefusesTheSourceNamingTheColumnAndTheRecord() throws Exception {
    Path csv = root.resolve("movies.csv");
    Files.write(
        csv, List.of("length,year,comedy,drama", "90,1999,1,0", "120,2005,0,2", "1,2,0,maybe"));
    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(request(csv, root.resolve("t").toString(), "comedy", "drama")));
    assertEquals(
        "source.task multilabel: label column 'drama' is not a yes/no target at movies.csv:3"
            + " (a multilabel target is 0 or 1, a number in between, or true/false)",
        e.getOriginalMessage());
    assertFalse(Files.exists(root.resolve("t")), "nothing is written");
  }

  @Test
  void anAppendWithOtherLabelColumnsOrAnotherTaskIsRefused() throws Exception {
    Path csv = root.resolve("movies.csv");
    Files.write(csv, List.of("length,year,comedy,drama", "90,1999,1,0", "120,2005,0,1"));
    String table = root.resolve("t").toString();
    new IngestActivitiesImpl().ingest(request(csv, table, "comedy", "drama"));

    ApplicationFailure swapped =
        assertThrows(
            ApplicationFailure.class,
            () -> new IngestActivitiesImpl().ingest(request(csv, table, "drama", "comedy")));
    assertTrue(
        swapped
            .getOriginalMessage()
            .contains("its labels are [comedy,drama], the source's [drama, comedy]"),
        swapped.getOriginalMessage());

    IngestRequest classes =
        IngestRequest.newBuilder()
            .setSource(
                DataSource.newBuilder()
                    .setFormat(DataSource.Format.csv)
                    .setUri(csv.toString())
                    .setLabelColumn("comedy")
                    .addFeatureColumns("length")
                    .addFeatureColumns("year")
                    .setMode(IngestMode.append))
            .setTableUri(table)
            .build();
    ApplicationFailure other =
        assertThrows(ApplicationFailure.class, () -> new IngestActivitiesImpl().ingest(classes));
    assertTrue(
        other.getOriginalMessage().contains("its task is multilabel, the source's classification"),
        other.getOriginalMessage());
    assertEquals(
        0L,
        DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).getAsLong(),
        "the table keeps its one version");
  }

  @Test
  void aParquetSourcesIntegerAndBooleanLabelColumnsBecomeTargetsAndNoFeatures() throws Exception {
    Path file = root.resolve("movies.parquet");
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message row { required double length; required double year; required int32 comedy;"
                + " required boolean drama; required binary split (UTF8); }");
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema).build()) {
      w.write(
          groups
              .newGroup()
              .append("length", 90.0)
              .append("year", 1999.0)
              .append("comedy", 1)
              .append("drama", false)
              .append("split", "train"));
      w.write(
          groups
              .newGroup()
              .append("length", 120.0)
              .append("year", 2005.0)
              .append("comedy", 0)
              .append("drama", true)
              .append("split", "train"));
      w.write(
          groups
              .newGroup()
              .append("length", 100.0)
              .append("year", 2010.0)
              .append("comedy", 1)
              .append("drama", true)
              .append("split", "test"));
    }
    String table = root.resolve("t").toString();
    IngestRequest request =
        IngestRequest.newBuilder()
            .setSource(
                DataSource.newBuilder()
                    .setFormat(DataSource.Format.parquet)
                    .setUri(file.toString())
                    .setTask(Task.multilabel)
                    .addLabelColumns("comedy")
                    .addLabelColumns("drama"))
            .setTableUri(table)
            .build();
    IngestResult r = new IngestActivitiesImpl().ingest(request);
    assertEquals(Map.of("train", 2L, "test", 1L), r.getRowsPerSplitMap());
    Map<String, String> props =
        DeltaTables.snapshotAt(DeltaTables.defaultEngine(), table, 0).getTableProperties();
    assertEquals(
        "length,year", props.get(TableSchemas.FEATURE_NAMES_PROPERTY), "comedy is a label");
    LabeledExamples train =
        new DeltaDatasetReader()
            .readExamples(TableRef.newBuilder().setUri(table).setVersion(0).build(), "train");
    assertArrayEquals(new float[] {1, 0, 0, 1}, train.values());
    assertEquals(List.of("comedy", "drama"), train.classNames());
  }
}
