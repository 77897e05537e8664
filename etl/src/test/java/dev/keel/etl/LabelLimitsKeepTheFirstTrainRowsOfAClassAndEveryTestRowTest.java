package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.testing.RealData;
import dev.keel.etl.testing.TableRows;
import dev.keel.tables.dataset.LabeledImages;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@code source.label_limits} on the real Fashion-MNIST files: a version with only the first 50
 * training sneakers (and all 1,000 test sneakers), then the full data as the next version.
 */
class LabelLimitsKeepTheFirstTrainRowsOfAClassAndEveryTestRowTest {
  private static final int SNEAKER = 7;

  static IngestRequest request(String table, Map<String, Long> limits) {
    return IngestRequest.newBuilder()
        .setTableUri(table)
        .setSource(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.fashion_mnist)
                .setUri(RealData.FASHION.toString())
                .setMode(IngestMode.overwrite)
                .putAllLabelLimits(limits))
        .build();
  }

  @Test
  void fiftySneakersInV0ThenTheFullClassInV1() throws Exception {
    Path root =
        Files.createDirectories(
            Path.of("target", "label-limits", UUID.randomUUID().toString()).toAbsolutePath());
    String table = root.resolve("story").toString();
    IngestActivitiesImpl etl = new IngestActivitiesImpl();

    IngestResult v0 = etl.ingest(request(table, Map.of("sneaker", 50L)));
    assertEquals(0, v0.getTable().getVersion());
    assertEquals(1_050, v0.getRowsPerLabelOrThrow("Sneaker"));
    assertEquals(7_000, v0.getRowsPerLabelOrThrow("Sandal"));
    assertEquals(Map.of("train", 54_050L, "test", 10_000L), v0.getRowsPerSplitMap());

    List<TableRows.Row> rows = TableRows.read(table, 0);
    List<TableRows.Row> trainSneakers =
        rows.stream().filter(r -> r.label() == SNEAKER && r.split().equals("train")).toList();
    assertEquals(50, trainSneakers.size());
    assertEquals(
        1_000, rows.stream().filter(r -> r.label() == SNEAKER && r.split().equals("test")).count());
    // the first 50 sneakers of the training file, in its order
    LabeledImages train = IdxFiles.read(RealData.FASHION, "train");
    int[] firstSneakers =
        IntStream.range(0, train.size())
            .filter(i -> train.labels()[i] == SNEAKER)
            .limit(50)
            .toArray();
    for (int k = 0; k < 50; k++) {
      assertArrayEquals(
          Arrays.copyOfRange(train.pixels(), firstSneakers[k] * 784, (firstSneakers[k] + 1) * 784),
          trainSneakers.get(k).image(),
          "sneaker " + k);
    }

    // the same limits again: that very ingest is the latest version, nothing is written
    IngestResult again = etl.ingest(request(table, Map.of("Sneaker", 50L)));
    assertTrue(again.getAlreadyIngested(), "class names are compared without case");
    assertEquals(0, again.getTable().getVersion());

    IngestResult v1 = etl.ingest(request(table, Map.of()));
    assertFalse(v1.getAlreadyIngested(), "without limits it is another ingest");
    assertEquals(1, v1.getTable().getVersion());
    assertEquals(7_000, v1.getRowsPerLabelOrThrow("Sneaker"));
    assertEquals(
        Map.of(SNEAKER, 7_000L),
        Map.of(SNEAKER, TableRows.perLabel(TableRows.read(table, 1)).get(SNEAKER)));
    // keel data describe tells the story: the limits of v0, then the whole class
    String described = DataTableHistory.render(DataTableHistory.describe(table));
    assertTrue(
        described.contains("        label limits:   sneaker=50 (train rows kept)\n"), described);
    assertEquals(1, described.lines().filter(l -> l.contains("label limits")).count(), described);
    assertTrue(described.contains("Sneaker=1050") && described.contains("Sneaker=7000"), described);
    assertEquals(
        50,
        TableRows.read(table, 0).stream()
            .filter(r -> r.label() == SNEAKER && r.split().equals("train"))
            .count(),
        "v0 stays readable as it was");
  }

  @Test
  void aClassTheSourceDoesNotHaveIsNamedAndNothingIsWritten() throws Exception {
    Path root =
        Files.createDirectories(
            Path.of("target", "label-limits", UUID.randomUUID().toString()).toAbsolutePath());
    String table = root.resolve("story").toString();
    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () -> new IngestActivitiesImpl().ingest(request(table, Map.of("snaker", 50L))));
    assertEquals(FailureTypes.INVALID_ARGUMENT, e.getType());
    assertTrue(e.isNonRetryable());
    assertEquals(
        "source.label_limits: 'snaker' is not a class of the source (T-shirt/top, Trouser, Pullover, Dress, Coat,"
            + " Sandal, Shirt, Sneaker, Bag, Ankle boot)",
        e.getOriginalMessage());
    assertFalse(Files.exists(root.resolve("story").resolve("_delta_log")), "no table version");
  }
}
