package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.config.Splits;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.etl.fashionmnist.TintedFashionMnist;
import dev.keel.etl.testing.RealData;
import dev.keel.etl.testing.TableRows;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledImages;
import io.temporal.failure.ApplicationFailure;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code image_mode: rgb}, {@code image_size} (resize, then centre crop) and {@code normalize} on
 * image folders: the table's shape, its bytes and the training split's statistics.
 */
class ColourImageFoldersBecomeNormalisedRgbTablesTest {
  Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "colour-folder", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
  }

  private static IngestRequest request(DataSource.Builder source, String table) {
    return IngestRequest.newBuilder()
        .setSource(source.setFormat(DataSource.Format.image_folder))
        .setTableUri(table)
        .build();
  }

  /**
   * A 16 wide, 8 high image: its left quarter red, its middle half green, its right quarter blue.
   */
  private static void writeBands(Path file) throws Exception {
    BufferedImage img = new BufferedImage(16, 8, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.RED);
    g.fillRect(0, 0, 4, 8);
    g.setColor(Color.GREEN);
    g.fillRect(4, 0, 8, 8);
    g.setColor(Color.BLUE);
    g.fillRect(12, 0, 4, 8);
    g.dispose();
    Files.createDirectories(file.getParent());
    ImageIO.write(img, "png", file.toFile());
  }

  private static LabeledImages split(String table, String split) {
    return (LabeledImages)
        new DeltaDatasetReader().readExamples(TableRef.newBuilder().setUri(table).build(), split);
  }

  @Test
  void aWideImageIsResizedToCoverTheSquareAndItsCentreCroppedIntoThreePlanes() throws Exception {
    Path src = root.resolve("src");
    writeBands(src.resolve("train/bands/a.png"));
    RealData.write(0, src.resolve("test/grey/b.png")); // grey: the same bytes in each plane
    String table = root.resolve("t").toString();
    new IngestActivitiesImpl()
        .ingest(
            request(
                DataSource.newBuilder()
                    .setUri(src.toString())
                    .setImageMode(DataSource.ImageMode.rgb)
                    .setImageSize("8x8"),
                table));

    assertEquals("3x8x8", TableRows.properties(table, 0).get(TableSchemas.IMAGE_SHAPE_PROPERTY));
    LabeledImages train = split(table, Splits.TRAIN);
    assertEquals(3, train.channels());
    assertArrayEquals(new long[] {3, 8, 8}, train.exampleShape());
    // the middle 8 of 16 columns survive the crop: all green, no red or blue at the edges
    byte[] px = train.pixels();
    for (int k = 0; k < 64; k++) {
      assertEquals(0, px[k] & 0xFF, "red at " + k);
      assertEquals(255, px[64 + k] & 0xFF, "green at " + k);
      assertEquals(0, px[128 + k] & 0xFF, "blue at " + k);
    }
    LabeledImages test = split(table, Splits.TEST);
    byte[] grey = test.pixels();
    for (int k = 0; k < 64; k++) {
      assertEquals(grey[k], grey[64 + k]);
      assertEquals(grey[k], grey[128 + k]);
    }
    assertTrue(train.normalization().isNone(), "normalize was not asked for");
  }

  @Test
  void normaliseRecordsTheTrainingSplitsChannelStatisticsAndReadersApplyThem() throws Exception {
    Path src = root.resolve("src");
    TintedFashionMnist.write(RealData.FASHION, src, 12, 4);
    String table = root.resolve("t").toString();
    new IngestActivitiesImpl()
        .ingest(
            request(
                DataSource.newBuilder()
                    .setUri(src.toString())
                    .setImageMode(DataSource.ImageMode.rgb)
                    .setNormalize(true),
                table));

    Map<String, String> props = TableRows.properties(table, 0);
    assertEquals("3x12x12", props.get(TableSchemas.IMAGE_SHAPE_PROPERTY));
    LabeledImages train = split(table, Splits.TRAIN);
    assertEquals(40, train.size());
    // the statistics by hand, over the training rows only
    double[] sum = new double[3];
    double[] squares = new double[3];
    byte[] px = train.pixels();
    for (int o = 0; o < px.length; o++) {
      int c = (o % 432) / 144;
      double v = (px[o] & 0xFF) / 255.0;
      sum[c] += v;
      squares[c] += v * v;
    }
    ImageNormalization recorded = ImageNormalization.fromProperties(props);
    assertEquals(recorded, train.normalization());
    for (int c = 0; c < 3; c++) {
      double mean = sum[c] / (40 * 144);
      double std = Math.sqrt(squares[c] / (40 * 144) - mean * mean);
      assertEquals(mean, recorded.mean()[c], 1e-5, "mean of channel " + c);
      assertEquals(std, recorded.std()[c], 1e-5, "std of channel " + c);
    }
    // the model's inputs: (b / 255 - mean) / std per channel, so each channel has mean 0, std 1
    float[] x = train.floats(java.util.stream.IntStream.range(0, 40).toArray());
    for (int c = 0; c < 3; c++) {
      double s = 0;
      double q = 0;
      for (int i = 0; i < 40; i++) {
        for (int k = 0; k < 144; k++) {
          double v = x[i * 432 + c * 144 + k];
          s += v;
          q += v * v;
        }
      }
      assertEquals(0, s / 5760, 1e-4, "normalised mean of channel " + c);
      assertEquals(1, q / 5760, 1e-3, "normalised variance of channel " + c);
    }
    // the test split is read with the same (training) numbers
    LabeledImages test = split(table, Splits.TEST);
    assertEquals(recorded, test.normalization());
  }

  @Test
  void anAppendKeepsTheTablesStatisticsAndAGreySourceDoesNotFitAnRgbTable() throws Exception {
    Path first = root.resolve("first");
    TintedFashionMnist.write(RealData.FASHION, first, 10, 2);
    String table = root.resolve("t").toString();
    DataSource.Builder rgb =
        DataSource.newBuilder().setImageMode(DataSource.ImageMode.rgb).setNormalize(true);
    new IngestActivitiesImpl().ingest(request(rgb.clone().setUri(first.toString()), table));
    Map<String, String> before = TableRows.properties(table, 0);

    Path second = root.resolve("second");
    TintedFashionMnist.write(RealData.FASHION, second, 10, 5);
    new IngestActivitiesImpl()
        .ingest(request(rgb.clone().setUri(second.toString()).setMode(IngestMode.append), table));
    Map<String, String> after = TableRows.properties(table, 1);
    assertEquals(
        before.get(ImageNormalization.MEAN_PROPERTY), after.get(ImageNormalization.MEAN_PROPERTY));
    assertEquals(
        before.get(ImageNormalization.STD_PROPERTY), after.get(ImageNormalization.STD_PROPERTY));

    ApplicationFailure e =
        assertThrows(
            ApplicationFailure.class,
            () ->
                new IngestActivitiesImpl()
                    .ingest(
                        request(
                            DataSource.newBuilder()
                                .setUri(second.toString())
                                .setMode(IngestMode.append),
                            table)));
    assertTrue(
        e.getOriginalMessage().contains("its images are 3x10x10, the source's 10x10"),
        e.getOriginalMessage());
    assertFalse(e.getOriginalMessage().isBlank());
  }

  @Test
  void theTintedFolderHasEveryClassInBothSplitsAndTheSameFilesEachTime() throws Exception {
    TintedFashionMnist.Written w =
        TintedFashionMnist.write(RealData.FASHION, root.resolve("a"), 16, 3);
    TintedFashionMnist.write(RealData.FASHION, root.resolve("b"), 16, 3);
    assertEquals(30, w.train());
    assertEquals(30, w.test());
    List<Path> files;
    try (var walk = Files.walk(root.resolve("a"))) {
      files = walk.filter(Files::isRegularFile).sorted().toList();
    }
    assertEquals(60, files.size());
    for (Path f : files) {
      Path twin = root.resolve("b").resolve(root.resolve("a").relativize(f));
      assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(twin), f.toString());
    }
    BufferedImage img = ImageIO.read(files.get(0).toFile());
    assertEquals(16, img.getWidth());
    assertEquals(16, img.getHeight());
  }
}
