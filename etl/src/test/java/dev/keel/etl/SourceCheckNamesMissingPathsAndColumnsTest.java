package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.DataSource;
import dev.keel.etl.testing.ParquetFiles;
import dev.keel.etl.testing.RealData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The submission-time source checks: a missing path or column is one problem naming what the user
 * wrote.
 */
class SourceCheckNamesMissingPathsAndColumnsTest {
  final Path root =
      Path.of("target", "source-check", UUID.randomUUID().toString()).toAbsolutePath();

  @Test
  void aMissingLocalPathIsNamedAsGiven() {
    for (String format : List.of("csv", "parquet", "image_folder", "fashion_mnist")) {
      String uri = "data/" + format + "/nope";
      assertEquals(
          List.of(new ConfigProblem("source.uri", uri + " does not exist")),
          SourceCheck.problems(
              DataSource.newBuilder()
                  .setFormat(DataSource.Format.valueOf(format))
                  .setUri(uri)
                  .setLabelColumn("y")
                  .build()));
    }
    String fileUri = root.resolve("gone.csv").toUri().toString();
    assertEquals(
        List.of(new ConfigProblem("source.uri", fileUri + " does not exist")),
        SourceCheck.problems(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri(fileUri)
                .setLabelColumn("y")
                .build()));
  }

  @Test
  void aLabelOrFeatureColumnThatIsNotInTheFileIsNamed() throws Exception {
    Files.createDirectories(root);
    Path csv = root.resolve("rows.csv");
    Files.write(csv, List.of(RealData.csvHeader(false), RealData.csvLine(0, null)));
    String columns =
        "its header row has 18 columns"; // counted, never quoted: the header is the file's content
    assertEquals(
        List.of(
            new ConfigProblem(
                "source.label_column", "'class' is not a column of " + csv + " (" + columns + ")"),
            new ConfigProblem(
                "source.feature_columns",
                "'f99' is not a column of " + csv + " (" + columns + ")")),
        SourceCheck.problems(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri(csv.toString())
                .setLabelColumn("class")
                .addFeatureColumns("f1")
                .addFeatureColumns("f99")
                .build()));
    assertEquals(
        List.of(),
        SourceCheck.problems(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri(root.toString())
                .setLabelColumn("label")
                .build()));

    Path pq = root.resolve("pq/rows.parquet");
    ParquetFiles.write(pq, 0, 3, null, Set.of());
    assertEquals(
        List.of(
            new ConfigProblem(
                "source.label_column", "'target' is not a column of " + pq + " (" + columns + ")")),
        SourceCheck.problems(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.parquet)
                .setUri(pq.getParent().toString())
                .setLabelColumn("target")
                .build()));
  }
}
