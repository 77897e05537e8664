package dev.keel.gpu.testing;

import dev.keel.api.v1.TableRef;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real tabular table for tests: Fashion-MNIST images average-pooled over {@code pool}×{@code
 * pool} blocks (pool 4: 7×7 = 49 features, raw 0–255 brightness, so standardization matters),
 * written as a labeled-features Delta table with tables' {@link DeltaTableWriter}, feature and
 * class names as table properties, the way tabular ETL writes them.
 */
public final class FashionMnistFeatures {
  public static final List<String> CLASS_NAMES =
      List.of(
          "T-shirt/top",
          "Trouser",
          "Pullover",
          "Dress",
          "Coat",
          "Sandal",
          "Shirt",
          "Sneaker",
          "Bag",
          "Ankle boot");

  private FashionMnistFeatures() {}

  /**
   * Writes the first {@code trainRows} train images and the first {@code testRows} test images as
   * one version (0) of a new table under {@code dir}.
   */
  public static TableRef write(Path dir, int pool, int trainRows, int testRows) throws IOException {
    LabeledImages train = FashionMnist.train();
    LabeledImages test = FashionMnist.test();
    int side = train.rows() / pool;
    List<String> names = new ArrayList<>();
    for (int r = 0; r < side; r++) {
      for (int c = 0; c < side; c++) {
        names.add("px_" + r + "_" + c);
      }
    }
    int n = trainRows + testRows;
    long[] ids = new long[n];
    int[] labels = new int[n];
    String[] splits = new String[n];
    float[][] features = new float[n][];
    for (int i = 0; i < n; i++) {
      boolean isTrain = i < trainRows;
      LabeledImages from = isTrain ? train : test;
      int row = isTrain ? i : i - trainRows;
      ids[i] = i;
      labels[i] = from.labels()[row];
      splits[i] = isTrain ? "train" : "test";
      features[i] = pooled(from, row, pool);
    }
    String uri = dir.toUri().toString();
    DeltaTableWriter writer =
        new DeltaTableWriter(
            uri,
            TableSchemas.LABELED_FEATURES,
            Map.of(
                TableSchemas.FEATURE_NAMES_PROPERTY, String.join(",", names),
                TableSchemas.CLASS_NAMES_PROPERTY, String.join(",", CLASS_NAMES)));
    long version =
        writer
            .newAppend()
            .add(
                Columns.of(n)
                    .add("id", ids)
                    .add("label", labels)
                    .add("split", splits)
                    .add("features", features))
            .commit();
    return TableRef.newBuilder().setUri(uri).setVersion(version).build();
  }

  /** Mean brightness (0–255) of each pool×pool block of image {@code row}, row-major. */
  static float[] pooled(LabeledImages images, int row, int pool) {
    int side = images.rows() / pool;
    float[] out = new float[side * side];
    int base = row * images.imageBytes();
    for (int r = 0; r < side * pool; r++) {
      for (int c = 0; c < side * pool; c++) {
        out[(r / pool) * side + c / pool] += images.pixels()[base + r * images.cols() + c] & 0xFF;
      }
    }
    for (int k = 0; k < out.length; k++) {
      out[k] /= pool * pool;
    }
    return out;
  }
}
