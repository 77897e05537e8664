package dev.keel.tables;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.TableRef;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A labeled-features table (the tabular ETL's output) reads back as {@link LabeledFeatures}: one
 * split, ordered by id across commits and files, with the feature and class names of the table
 * properties; a row whose vector has another length is refused naming the table and the id.
 */
class FeatureTablesReadBackAsFeatureVectorsInIdOrderTest {
  private static final Map<String, String> PROPERTIES =
      Map.of(
          TableSchemas.FEATURE_NAMES_PROPERTY, "sepal_length, sepal_width,petal_length",
          TableSchemas.CLASS_NAMES_PROPERTY, "setosa,versicolor,virginica");

  private String uri;
  private DeltaTableWriter writer;

  @BeforeEach
  void setUp() throws Exception {
    Path dir = Path.of("target", "feature-tables", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(dir);
    uri = dir.toUri().toString();
    writer = new DeltaTableWriter(uri, TableSchemas.LABELED_FEATURES, PROPERTIES);
  }

  private static Columns rows(long[] ids, int[] labels, String[] splits, float[][] features) {
    return Columns.of(ids.length)
        .add("id", ids)
        .add("label", labels)
        .add("split", splits)
        .add("features", features);
  }

  @Test
  void oneSplitInIdOrderWithTheTablesNames() {
    writer
        .newAppend()
        .add(
            rows(
                new long[] {5, 3, 9},
                new int[] {2, 1, 0},
                new String[] {"train", "train", "test"},
                new float[][] {{5.9f, 3f, 5.1f}, {5.5f, 2.3f, 4f}, {5.1f, 3.5f, 1.4f}}))
        .commit();
    long version =
        writer
            .newAppend()
            .add(
                rows(
                    new long[] {1, 7},
                    new int[] {0, 1},
                    new String[] {"train", "test"},
                    new float[][] {{4.9f, 3f, 1.4f}, {6.4f, 3.2f, 4.5f}}))
            .commit();
    TableRef table = TableRef.newBuilder().setUri(uri).setVersion(version).build();

    LabeledExamples read = new DeltaDatasetReader().readExamples(table, "train");
    LabeledFeatures train = (LabeledFeatures) read;
    assertArrayEquals(new long[] {1, 3, 5}, train.ids());
    assertArrayEquals(new int[] {0, 1, 2}, train.labels());
    assertArrayEquals(
        new float[] {4.9f, 3f, 1.4f, 5.5f, 2.3f, 4f, 5.9f, 3f, 5.1f}, train.features());
    assertArrayEquals(new long[] {3}, train.exampleShape());
    assertEquals(List.of("sepal_length", "sepal_width", "petal_length"), train.featureNames());
    assertEquals(List.of("setosa", "versicolor", "virginica"), train.classNames());
    assertArrayEquals(new float[] {5.9f, 3f, 5.1f, 4.9f, 3f, 1.4f}, train.floats(new int[] {2, 0}));

    LabeledFeatures test = (LabeledFeatures) new DeltaDatasetReader().readExamples(table, "test");
    assertArrayEquals(new long[] {7, 9}, test.ids());

    TableRef first = table.toBuilder().setVersion(version - 1).build();
    assertArrayEquals(
        new long[] {3, 5}, new DeltaDatasetReader().readExamples(first, "train").ids());
  }

  @Test
  void askedForImagesAFeaturesTableSaysWhatItHolds() {
    long version =
        writer
            .newAppend()
            .add(
                rows(
                    new long[] {1},
                    new int[] {0},
                    new String[] {"train"},
                    new float[][] {{1f, 2f, 3f}}))
            .commit();
    TableRef table = TableRef.newBuilder().setUri(uri).setVersion(version).build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new DeltaDatasetReader().read(table, "train"));
    assertEquals(
        "table " + uri + " v" + version + " holds vectors of 3 features, not images",
        e.getMessage());
  }

  @Test
  void aVectorOfAnotherLengthIsRefusedNamingItsId() {
    long version =
        writer
            .newAppend()
            .add(
                rows(
                    new long[] {1, 2},
                    new int[] {0, 1},
                    new String[] {"train", "train"},
                    new float[][] {{1f, 2f, 3f}, {4f, 5f}}))
            .commit();
    TableRef table = TableRef.newBuilder().setUri(uri).setVersion(version).build();
    RuntimeException e =
        assertThrows(
            RuntimeException.class, () -> new DeltaDatasetReader().readExamples(table, "train"));
    assertEquals(
        "table " + uri + " v" + version + ": features of id 2 has 2 values, expected 3",
        e.getMessage());
  }
}
