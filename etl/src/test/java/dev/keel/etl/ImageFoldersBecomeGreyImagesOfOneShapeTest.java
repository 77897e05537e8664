package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.testing.RealData;
import dev.keel.etl.testing.TableRows;
import dev.keel.tables.TableSchemas;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Image folders of real Fashion-MNIST images written as PNG and JPEG, ingested into labeled-images
 * tables.
 */
class ImageFoldersBecomeGreyImagesOfOneShapeTest {
  Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = Path.of("target", "image-folder", UUID.randomUUID().toString()).toAbsolutePath();
    Files.createDirectories(root);
  }

  static IngestRequest request(DataSource.Builder source, String table) {
    return IngestRequest.newBuilder()
        .setSource(source.setFormat(DataSource.Format.image_folder))
        .setTableUri(table)
        .build();
  }

  @Test
  void trainAndTestFoldersKeepTheirSplitAndPixelsExactly() throws Exception {
    Path src = root.resolve("src");
    List<String> paths = new ArrayList<>();
    Map<String, Integer> imageOf = new TreeMap<>();
    for (int i = 0; i < 60; i++) {
      String rel =
          (i < 45 ? "train/" : "test/") + RealData.className(RealData.label(i)) + "/" + i + ".png";
      RealData.write(i, src.resolve(rel));
      paths.add(rel);
      imageOf.put(rel, i);
    }
    String table = root.resolve("t").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(request(DataSource.newBuilder().setUri(src.toString()), table));

    assertEquals(0, r.getTable().getVersion());
    assertEquals(60, r.getRows());
    assertEquals(Map.of("train", 45L, "test", 15L), r.getRowsPerSplitMap());
    List<String> classes =
        new ArrayList<>(new TreeSet<>(paths.stream().map(p -> p.split("/")[1]).toList()));
    Map<String, Long> perClass = new TreeMap<>();
    for (int i = 0; i < 60; i++) {
      perClass.merge(RealData.className(RealData.label(i)), 1L, Long::sum);
    }
    assertEquals(perClass, r.getRowsPerLabelMap());
    Map<String, String> props = TableRows.properties(table, 0);
    assertEquals(String.join(",", classes), props.get(TableSchemas.CLASS_NAMES_PROPERTY));
    assertEquals("28x28", props.get(TableSchemas.IMAGE_SHAPE_PROPERTY));

    // ids follow the sorted relative paths; each row holds its file's label, split and exact pixels
    List<String> sorted = new ArrayList<>(new TreeSet<>(paths));
    List<TableRows.Row> rows = TableRows.read(table, 0);
    assertEquals(60, rows.size());
    for (TableRows.Row row : rows) {
      String rel = sorted.get((int) row.id());
      int i = imageOf.get(rel);
      assertEquals(rel.split("/")[0], row.split(), rel);
      assertEquals(classes.indexOf(RealData.className(RealData.label(i))), row.label(), rel);
      assertArrayEquals(RealData.pixels(i), row.image(), rel);
    }
  }

  @Test
  void classFoldersAreSplitByTheHashOfTheRelativePathAndResizedToTheFirstImage() throws Exception {
    Path src = root.resolve("src");
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String rel = RealData.className(RealData.label(i)) + "/" + i + (i % 3 == 0 ? ".jpg" : ".png");
      RealData.write(i, src.resolve(rel));
      paths.add(rel);
    }
    // one bigger image: resized to the first image's 28x28
    BufferedImage big = new BufferedImage(56, 56, BufferedImage.TYPE_BYTE_GRAY);
    big.getGraphics().drawImage(RealData.image(100), 0, 0, 56, 56, null);
    String bigRel = RealData.className(RealData.label(100)) + "/zz-big.png";
    ImageIO.write(big, "png", src.resolve(bigRel).toFile());
    paths.add(bigRel);

    String table = root.resolve("t").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(
                request(
                    DataSource.newBuilder().setUri(src.toString()).setTestFraction(0.3), table));

    long expectedTest = paths.stream().filter(p -> hashFraction(p) < 0.3).count();
    assertTrue(expectedTest > 10 && expectedTest < 50, "the hash spreads: " + expectedTest);
    assertEquals(Map.of("train", 101 - expectedTest, "test", expectedTest), r.getRowsPerSplitMap());
    assertEquals("28x28", TableRows.properties(table, 0).get(TableSchemas.IMAGE_SHAPE_PROPERTY));
    List<TableRows.Row> rows = TableRows.read(table, 0);
    rows.forEach(row -> assertEquals(784, row.image().length));
    // the resized copy stays close to the original image
    List<String> sorted = new ArrayList<>(new TreeSet<>(paths));
    byte[] resized = rows.get(sorted.indexOf(bigRel)).image();
    byte[] original = RealData.pixels(100);
    double diff = 0;
    for (int k = 0; k < 784; k++) {
      diff += Math.abs((resized[k] & 0xFF) - (original[k] & 0xFF));
    }
    assertTrue(diff / 784 < 8, "mean abs difference " + diff / 784);
  }

  @Test
  void aConfiguredImageSizeResizesEveryImage() throws Exception {
    Path src = root.resolve("src");
    for (int i = 0; i < 12; i++) {
      RealData.write(i, src.resolve(RealData.className(RealData.label(i)) + "/" + i + ".png"));
    }
    String table = root.resolve("t").toString();
    IngestResult r =
        new IngestActivitiesImpl()
            .ingest(
                request(
                    DataSource.newBuilder().setUri(src.toString()).setImageSize("14x14"), table));
    assertEquals(12, r.getRows());
    assertEquals("14x14", TableRows.properties(table, 0).get(TableSchemas.IMAGE_SHAPE_PROPERTY));
    TableRows.read(table, 0).forEach(row -> assertEquals(196, row.image().length));
  }

  /**
   * The documented split rule, computed independently: SHA-256's first 8 bytes as a fraction of
   * 2^64.
   */
  static double hashFraction(String key) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      double u = 0;
      for (int i = 0; i < 8; i++) {
        u = u * 256 + (d[i] & 0xFF);
      }
      return u / Math.pow(2, 64);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
